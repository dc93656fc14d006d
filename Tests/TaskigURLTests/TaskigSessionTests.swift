import Foundation
import TaskigURL
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("TaskigSession: a chosen session, and downloads")
struct TaskigSessionTests {
    /// The files URLSession's own download tasks leave in the temporary directory on Linux
    /// when a download fails: `<UUID>.tmp`.
    private func strayDownloadFiles() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path))
        return Set((names ?? []).filter { $0.hasSuffix(".tmp") })
    }

    enum FailedDownload: String, CaseIterable {
        case brokenBody = "the body breaks off"
        case rejectedStatus = "validatingStatus rejects it"
        case cancelledTask = "the task is cancelled"
        case cancelledFuture = "its future is cancelled"
        case timedOut = "await(timeout:) gives up"
    }

    @Test("a download that does not succeed leaves no file behind, anywhere", arguments: FailedDownload.allCases)
    func failedDownloadsLeaveNothing(failure: FailedDownload) throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let before = strayDownloadFiles()
                let destination = directory.appendingPathComponent("file.bin")
                let session = URLSession.shared.taskig
                let result: Result<(URL, HTTPURLResponse), Error>? = try withWatchdog {
                    switch failure {
                    case .brokenBody:
                        return session.download(from: server.url("/close-mid-body"), to: destination).awaitResult()
                    case .rejectedStatus:
                        return session.download(from: server.url("/missing"), to: destination)
                            .validatingStatus(200..<300).awaitResult()
                    case .cancelledTask:
                        let task = session.download(from: server.url("/large-slow"), to: destination)
                        let waiter = Background { task.awaitResult() }
                        _ = server.waitUntil(timeout: 3) { $0.arrivals["/large-slow", default: 0] == 1 }
                        Thread.sleep(forTimeInterval: 0.1)
                        task.cancel()
                        return waiter.value(within: 5)
                    case .cancelledFuture:
                        let future = session.download(from: server.url("/large-slow"), to: destination).start()
                        _ = server.waitUntil(timeout: 3) { $0.arrivals["/large-slow", default: 0] == 1 }
                        Thread.sleep(forTimeInterval: 0.1)
                        future.cancel()
                        return future.awaitResult()
                    case .timedOut:
                        return Result {
                            try session.download(from: server.url("/large-slow"), to: destination).await(timeout: 0.3)
                        }
                    }
                }
                #expect(throws: (any Error).self) { try result?.get() }
                // The part file goes when the transfer ends, which for a cancelled one may be
                // a moment after its waiter was released.
                let deadline = Date(timeIntervalSinceNow: 3)
                var left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                while !left.isEmpty && Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.01)
                    left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                }
                #expect(left.isEmpty, "\(left)")
                #expect(strayDownloadFiles().subtracting(before).isEmpty)
            }
        }
    }

    @Test("tasks run on the chosen session, with its configuration")
    func chosenSession() throws {
        try withServer { server in
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["X-Probe": "from the configuration"]
            let session = URLSession(configuration: configuration)
            defer { session.finishTasksAndInvalidate() }
            let (_, response) = try withWatchdog { try session.taskig.data(from: server.url("/echo")).await() }
            #expect(response.value(forHTTPHeaderField: "X-Probe") == "from the configuration")
        }
    }

    @Test("data(for:) sends the request as given")
    func dataForRequest() throws {
        try withServer { server in
            var request = URLRequest(url: server.url("/echo"))
            request.httpMethod = "PUT"
            request.httpBody = Data("put me".utf8)
            let task = URLSession.shared.taskig.data(for: request)
            #expect(task.request == request)
            let (data, response) = try withWatchdog { try task.await() }
            #expect(response.value(forHTTPHeaderField: "X-Method") == "PUT")
            #expect(String(decoding: data, as: UTF8.self) == "put me")
        }
    }

    @Test("a download gives the destination file, whole, and the response")
    func download() throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let size = 4 << 20
                let destination = directory.appendingPathComponent("large.bin")
                let task = URLSession.shared.taskig.download(from: server.url("/large?bytes=\(size)"), to: destination)
                let (file, response) = try withWatchdog { try task.await() }
                #expect(file == destination)
                #expect(response.statusCode == 200)
                #expect(try Data(contentsOf: destination) == TestRoutes.largeBody(count: size))
                // Nothing is left behind but the file itself.
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["large.bin"])
            }
        }
    }

    @Test("a download replaces a file already at the destination")
    func downloadReplaces() throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let destination = directory.appendingPathComponent("hello.txt")
                try Data("old content".utf8).write(to: destination)
                let task = URLSession.shared.taskig.download(
                    for: URLRequest(url: server.url("/hello")), to: destination)
                _ = try withWatchdog { try task.await() }
                #expect(try String(contentsOf: destination, encoding: .utf8) == "hello, world")
            }
        }
    }

    @Test("a download that fails mid-body leaves the destination untouched")
    func failedDownload() throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let destination = directory.appendingPathComponent("kept.txt")
                try Data("kept".utf8).write(to: destination)
                let task = URLSession.shared.taskig.download(from: server.url("/close-mid-body"), to: destination)
                let result = try withWatchdog { task.awaitResult() }
                #expect(throws: URLError.self) { try result.get() }
                #expect(try String(contentsOf: destination, encoding: .utf8) == "kept")
            }
        }
    }

    @Test("a download with a rejected status is not moved into place; its body is in the error")
    func rejectedDownload() throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let destination = directory.appendingPathComponent("missing.txt")
                let task = URLSession.shared.taskig.download(from: server.url("/missing"), to: destination)
                    .validatingStatus(200..<300)
                let result = try withWatchdog { task.awaitResult() }
                guard case .failure(TaskigURLError.badStatus(404, _, let body)) = result else {
                    Issue.record("expected badStatus(404), got \(result)")
                    return
                }
                #expect(String(decoding: body, as: UTF8.self) == "no such page")
                #expect(!FileManager.default.fileExists(atPath: destination.path))
            }
        }
    }

    @Test("a cancelled download is never moved into place, and the server sees the connection close")
    func cancelledDownload() throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let destination = directory.appendingPathComponent("slow.txt")
                let task = URLSession.shared.taskig.download(from: server.url("/slow?ms=5000"), to: destination)
                let waiter = Background { task.awaitResult() }
                #expect(server.waitUntil(timeout: 3) { $0.arrivals["/slow"] == 1 })
                task.cancel()
                let result = try #require(waiter.value(within: 3))
                guard case .failure(CancellableTaskError.taskWasCancelled) = result else {
                    Issue.record("expected taskWasCancelled, got \(result)")
                    return
                }
                #expect(server.waitUntil(timeout: 3) { $0.slowClosedByClient == 1 })
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            }
        }
    }

    @Test("a destination in a directory that does not exist is a file system error, and no file is left")
    func destinationDirectoryMissing() throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let destination = directory.appendingPathComponent("no/such/dir/file.txt")
                let task = URLSession.shared.taskig.download(from: server.url("/hello"), to: destination)
                let result = try withWatchdog { task.awaitResult() }
                #expect(throws: (any Error).self) { try result.get() }
                if case .failure(let error) = result {
                    #expect(!(error is URLError) && !(error is TaskigURLError))
                }
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            }
        }
    }
}
