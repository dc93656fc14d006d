import Foundation
import TaskigURL
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `progress:` of ``TaskigSession``'s data tasks and downloads, against the loopback
/// server. `/gated` sends the first half of its body and waits for the test to open the
/// gate, so a test can look at the progress in the middle of a transfer without racing it.
@Suite("Byte progress of data tasks and downloads")
struct ByteProgressTests {
    enum Transfer: String, CaseIterable {
        case data = "a data task"
        case download = "a download"

        /// A task of this kind that gets `url`, counting into `progress`; a download saves the
        /// body in `directory`.
        func fetch(_ url: URL, progress: Progress, in directory: URL, accepting: Range<Int> = 0..<1_000) -> Fetch {
            let session = URLSession.shared.taskig
            switch self {
            case .data:
                let task = session.data(from: url, progress: progress).validatingStatus(accepting)
                return Fetch(
                    body: { attempts in task.retry(attempts).awaitResult().map(\.0) },
                    cancel: { task.cancel() })
            case .download:
                let destination = directory.appendingPathComponent(UUID().uuidString)
                let task = session.download(from: url, to: destination, progress: progress)
                    .validatingStatus(accepting)
                return Fetch(
                    body: { attempts in Result { try Data(contentsOf: task.retry(attempts).await().0) } },
                    cancel: { task.cancel() })
            }
        }
    }

    /// A data task or a download, seen the same way: its body, and its `cancel()`.
    struct Fetch: Sendable {
        /// Waits for up to `attempts` runs of the task (see `retry`) and gives the body.
        let body: @Sendable (_ attempts: Int) -> Result<Data, Error>
        let cancel: @Sendable () -> Void
    }

    /// Where a progress stands: its total and completed counts.
    struct Counts: Equatable, CustomStringConvertible {
        var total: Int64
        var completed: Int64

        init(_ total: Int64, _ completed: Int64) {
            self.total = total
            self.completed = completed
        }

        init(of progress: Progress) {
            self.init(progress.totalUnitCount, progress.completedUnitCount)
        }

        var description: String { "\(completed) of \(total)" }
    }

    @Test(
        "with a Content-Length, the total is the body's length from the response on, and the count rises to it",
        arguments: Transfer.allCases)
    func contentLength(transfer: Transfer) throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let size: Int64 = 200_000
                let progress = Progress(totalUnitCount: 0)
                let fetch = transfer.fetch(server.url("/gated?bytes=\(size)"), progress: progress, in: directory)
                let waiter = Background { fetch.body(1) }

                #expect(waitUntil { progress.completedUnitCount == size / 2 }, "\(Counts(of: progress))")
                #expect(Counts(of: progress) == Counts(size, size / 2))
                #expect(!progress.isFinished)
                server.openGate()

                let body = try #require(waiter.value(within: 10))
                #expect(try body.get() == TestRoutes.largeBody(count: Int(size)))
                #expect(Counts(of: progress) == Counts(size, size))
                #expect(progress.isFinished)
            }
        }
    }

    @Test(
        "without a Content-Length, the total stays one above the bytes received until the body ends, then equals them",
        arguments: Transfer.allCases)
    func chunked(transfer: Transfer) throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let size: Int64 = 200_000
                let progress = Progress(totalUnitCount: 0)
                let fetch = transfer.fetch(
                    server.url("/gated?bytes=\(size)&chunked=1"), progress: progress, in: directory)
                let waiter = Background { fetch.body(1) }

                #expect(waitUntil { progress.completedUnitCount == size / 2 }, "\(Counts(of: progress))")
                #expect(Counts(of: progress) == Counts(size / 2 + 1, size / 2))
                #expect(!progress.isFinished)
                server.openGate()

                let body = try #require(waiter.value(within: 10))
                #expect(try body.get() == TestRoutes.largeBody(count: Int(size)))
                #expect(Counts(of: progress) == Counts(size, size))
            }
        }
    }

    @Test(
        "a cancelled run takes back what it added, and leaves the counts the progress had before",
        arguments: Transfer.allCases)
    func cancelledRun(transfer: Transfer) throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let size: Int64 = 200_000
                let progress = Progress(totalUnitCount: 10)
                progress.completedUnitCount = 4
                let fetch = transfer.fetch(server.url("/gated?bytes=\(size)"), progress: progress, in: directory)
                let waiter = Background { fetch.body(1) }

                #expect(waitUntil { progress.completedUnitCount == 4 + size / 2 }, "\(Counts(of: progress))")
                #expect(Counts(of: progress) == Counts(10 + size, 4 + size / 2))
                fetch.cancel()

                let body = try #require(waiter.value(within: 5))
                #expect(throws: CancellableTaskError.taskWasCancelled) { try body.get() }
                // Taken back when URLSession reports the cancelled transfer's end, which may be
                // a moment after the waiter was released.
                #expect(waitUntil { Counts(of: progress) == Counts(10, 4) }, "\(Counts(of: progress))")
            }
        }
    }

    enum Failure: String, CaseIterable {
        case brokenBody = "the body breaks off"
        case rejectedStatus = "validatingStatus rejects the status"
    }

    @Test(
        "a failed run takes back what it added before its waiter hears of it", arguments: Transfer.allCases,
        Failure.allCases)
    func failedRun(transfer: Transfer, failure: Failure) throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let progress = Progress(totalUnitCount: 0)
                let fetch =
                    switch failure {
                    case .brokenBody:
                        transfer.fetch(server.url("/close-mid-body"), progress: progress, in: directory)
                    case .rejectedStatus:
                        transfer.fetch(server.url("/missing"), progress: progress, in: directory, accepting: 200..<300)
                    }

                let body = try withWatchdog { fetch.body(1) }

                #expect(throws: (any Error).self) { try body.get() }
                #expect(Counts(of: progress) == Counts(0, 0))
            }
        }
    }

    @Test("a retried transfer counts its body once: the failed run takes back its part", arguments: Transfer.allCases)
    func retriedRun(transfer: Transfer) throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let size: Int64 = 50_000
                let progress = Progress(totalUnitCount: 0)
                let fetch = transfer.fetch(server.url("/flaky?bytes=\(size)"), progress: progress, in: directory)

                let body = try withWatchdog { fetch.body(2) }

                #expect(try body.get() == TestRoutes.largeBody(count: Int(size)))
                #expect(server.snapshot.arrivals["/flaky"] == 2)
                #expect(Counts(of: progress) == Counts(size, size))
            }
        }
    }

    @Test("transfers that share one progress add up", arguments: Transfer.allCases)
    func sharedProgress(transfer: Transfer) throws {
        try withServer { server in
            try withTemporaryDirectory { directory in
                let sizes = [1_000, 20_000, 300_000]
                let progress = Progress(totalUnitCount: 0)
                let bodies = sizes.map { size in
                    let fetch = transfer.fetch(server.url("/large?bytes=\(size)"), progress: progress, in: directory)
                    return ThrowableTask { try fetch.body(1).get() }
                }

                let received = try withWatchdog { try bodies.awaitAll(concurrency: 3) }

                #expect(received.map(\.count) == sizes)
                let total = Int64(sizes.reduce(0, +))
                #expect(Counts(of: progress) == Counts(total, total))
            }
        }
    }

    @Test("a data task with a progress keeps its session's configuration and follows redirects")
    func dataTaskSession() throws {
        try withServer { server in
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["X-Probe": "from the configuration"]
            let session = URLSession(configuration: configuration)
            defer { session.finishTasksAndInvalidate() }
            let progress = Progress(totalUnitCount: 0)

            let (_, echoed) = try withWatchdog {
                try session.taskig.data(from: server.url("/echo"), progress: progress).await()
            }
            let (redirected, _) = try withWatchdog {
                try session.taskig.data(from: server.url("/redirect"), progress: progress).await()
            }

            #expect(echoed.value(forHTTPHeaderField: "X-Probe") == "from the configuration")
            #expect(String(decoding: redirected, as: UTF8.self) == "hello, world")
            #expect(Counts(of: progress) == Counts(12, 12))
        }
    }
}
