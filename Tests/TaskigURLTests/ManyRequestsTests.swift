import Foundation
import TaskigURL
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Many requests through awaitAll")
struct ManyRequestsTests {
    @Test("50 requests at concurrency 8: the server sees exactly 8 at most in flight, and all 50 arrive in order")
    func boundedConcurrency() throws {
        try withServer { server in
            // More connections per host than the bound, so that the bound is Taskig's alone.
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 16
            let session = URLSession(configuration: configuration)
            defer { session.finishTasksAndInvalidate() }
            let tasks = (0..<50).map { session.taskig.data(from: server.url("/inflight?ms=100&meet=8&id=\($0)")) }

            let results = try withWatchdog(20) { try tasks.awaitAll(concurrency: 8) }

            #expect(results.map { String(decoding: $0.0, as: UTF8.self) } == (0..<50).map(String.init))
            let record = server.snapshot
            #expect(record.arrivals["/inflight"] == 50)
            // The server holds each request until eight were in flight at once (or 10 s): eight
            // lanes meet there however late a loaded machine starts the last of them.
            #expect(record.maxInFlight == 8, "\(record.maxInFlight) in flight at most")
            #expect(record.inFlight == 0)
        }
    }

    @Test("plain URLs at concurrency 8 never put more than 8 in flight")
    func plainURLs() throws {
        try withServer { server in
            let urls = (0..<50).map { server.url("/inflight?ms=20&id=\($0)") }

            let results = try withWatchdog(20) { try urls.awaitAll(concurrency: 8) }

            #expect(results.map { String(decoding: $0.0, as: UTF8.self) } == (0..<50).map(String.init))
            let record = server.snapshot
            #expect(record.arrivals["/inflight"] == 50)
            // URLSession.shared also holds itself to 6 connections per host.
            #expect((1...8).contains(record.maxInFlight))
        }
    }
}
