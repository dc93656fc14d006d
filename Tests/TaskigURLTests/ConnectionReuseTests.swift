import Foundation
import Testing

@testable import TaskigURL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How requests use TCP connections, counted where they arrive: the loopback server's
/// `/kept` routes keep each connection open for the next request, and the server counts the
/// connections it accepts.
@Suite("Connections: plain requests reuse them, and runs on the delegate session share them")
struct ConnectionReuseTests {
    enum Session: String, CaseIterable {
        case own = "a session of its own"
        case shared = "URLSession.shared"

        /// Runs `body` with a `session.taskig` of this kind, made anew for each request.
        func use<T>(_ body: (@escaping @Sendable () -> TaskigSession) throws -> T) rethrows -> T {
            switch self {
            case .own:
                let session = URLSession(configuration: .ephemeral)
                defer { session.finishTasksAndInvalidate() }
                return try body { session.taskig }
            case .shared:
                return try body { URLSession.shared.taskig }
            }
        }
    }

    @Test("plain GETs one after the other use one connection", arguments: Session.allCases)
    func sequentialGets(session: Session) throws {
        try withServer { server in
            let bodies = try session.use { taskig in
                try withWatchdog {
                    try (0..<20).map { try taskig().data(from: server.url("/kept?id=\($0)")).await().0 }
                }
            }

            #expect(bodies.map { String(decoding: $0, as: UTF8.self) } == (0..<20).map(String.init))
            #expect(server.snapshot.connections == 1)
        }
    }

    /// Eight requests held by the server until all eight arrived need eight connections.
    /// Then come eight requests one at a time: with libcurl's default connection cache (four
    /// connections per request in flight), each of them would close an idle one of the eight
    /// until four were left, and the second burst would open four again: 12 in all.
    @Test("a burst's connections stay open for the next burst while single requests come between")
    func burstsKeepTheirConnections() throws {
        try withServer { server in
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 8
            let session = URLSession(configuration: configuration)
            defer { session.finishTasksAndInvalidate() }
            let burst: @Sendable () -> [HTTPTask<Data>] = {
                (0..<8).map { session.taskig.data(from: server.url("/kept-together?count=8&id=\($0)")) }
            }

            let bodies = try withWatchdog(30) {
                let first = try burst().awaitAll(concurrency: 8).map(\.0)
                let single = try (0..<8).map { try session.taskig.data(from: server.url("/kept?id=\($0)")).await().0 }
                let second = try burst().awaitAll(concurrency: 8).map(\.0)
                return first + single + second
            }

            let expected = (0..<3).flatMap { _ in (0..<8).map(String.init) }
            #expect(bodies.map { String(decoding: $0, as: UTF8.self) } == expected)
            #expect(server.snapshot.connections == 8)
        }
    }

    @Test(
        "data tasks with a progress and downloads of one session share the delegate session's connection",
        arguments: Session.allCases)
    func delegateSessionIsShared(session: Session) throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let progress = Progress(totalUnitCount: 0)
                let bodies = try session.use { taskig in
                    try withWatchdog {
                        try (0..<3).flatMap { index -> [Data] in
                            let counted = taskig().data(from: server.url("/kept?id=\(index)"), progress: progress)
                            let file = directory.appendingPathComponent("\(index)")
                            let saved = taskig().download(from: server.url("/kept?id=\(index)"), to: file)
                            return [try counted.await().0, try Data(contentsOf: saved.await().0)]
                        }
                    }
                }

                #expect(bodies.map { String(decoding: $0, as: UTF8.self) } == ["0", "0", "1", "1", "2", "2"])
                #expect(progress.completedUnitCount == 3)
                #expect(server.snapshot.connections == 1)
            }
        }
    }

    @Test("every session.taskig of one session has the same delegate session, made once")
    func oneDelegateSessionPerSession() {
        let own = URLSession(configuration: .ephemeral)
        defer { own.finishTasksAndInvalidate() }

        #expect(URLSession.shared.taskig.delegateSession === URLSession.shared.taskig.delegateSession)
        #expect(URLSession.shared.taskig.delegateSession.session === URLSession.shared.taskig.delegateSession.session)
        #expect(own.taskig.delegateSession === own.taskig.delegateSession)
        #expect(own.taskig.delegateSession.session === own.taskig.delegateSession.session)
        #expect(own.taskig.delegateSession !== URLSession.shared.taskig.delegateSession)
        #expect(own.taskig.delegateSession.session !== own)
    }

    enum Transfer: String, CaseIterable {
        case dataWithProgress = "a data task with a progress"
        case download = "a download"

        var transfer: ByteProgressTests.Transfer {
            switch self {
            case .dataWithProgress: .data
            case .download: .download
            }
        }
    }

    @Test(
        "cancelling one run on the delegate session cancels its request alone",
        arguments: Transfer.allCases, Transfer.allCases)
    func cancellingOneRunLeavesTheOthers(cancelled: Transfer, kept: Transfer) throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let size = 100_000
                let doomed = cancelled.transfer.fetch(
                    server.url("/slow?ms=5000"), progress: Progress(totalUnitCount: 0), in: directory)
                let survivor = kept.transfer.fetch(
                    server.url("/gated?bytes=\(size)"), progress: Progress(totalUnitCount: 0), in: directory)
                let doomedWaiter = Background { doomed.body(1) }
                let survivorWaiter = Background { survivor.body(1) }
                #expect(server.waitUntil(timeout: 3) { $0.arrivals["/slow"] == 1 && $0.arrivals["/gated"] == 1 })

                doomed.cancel()

                let doomedResult = try #require(doomedWaiter.value(within: 3))
                #expect(throws: CancellableTaskError.taskWasCancelled) { try doomedResult.get() }
                #expect(server.waitUntil(timeout: 3) { $0.slowClosedByClient == 1 })
                // The survivor's body is only half sent: it is still in flight, and must finish.
                server.openGate()
                let survivorResult = try #require(survivorWaiter.value(within: 5))
                #expect(try survivorResult.get() == TestRoutes.largeBody(count: size))
            }
        }
    }

    @Test("the delegate session of a released session is let go of, which closes its connections")
    func releasedSessionsLetGo() throws {
        try withServer { server in
            try withWatchdog {
                let isReleased = try Self.oneRequestWithProgress(to: server.url("/kept"))
                // URLSession lets go of an invalidated session a moment after its last task.
                #expect(waitUntil { isReleased() })
                // Released sessions are let go of when another session is first seen.
                let other = URLSession(configuration: .ephemeral)
                _ = other.taskig
                other.finishTasksAndInvalidate()
            }

            #expect(server.snapshot.connections == 1)
            #expect(server.waitUntil(timeout: 5) { $0.keptClosedByClient == 1 })
        }
    }

    /// Sends one request with a progress on a session that is released once this returns
    /// and URLSession lets go of it; returns whether it is released.
    private static func oneRequestWithProgress(to url: URL) throws -> () -> Bool {
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        _ = try session.taskig.data(from: url, progress: Progress(totalUnitCount: 0)).await()
        return { [weak session] in session == nil }
    }
}
