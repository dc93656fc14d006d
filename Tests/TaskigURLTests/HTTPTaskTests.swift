import Foundation
import TaskigURL
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("HTTPTask: cancellation reaches the network")
struct HTTPTaskTests {
    @Test("cancel() releases a blocked waiter at once, and the server sees the connection close")
    func cancelWhileWaiting() throws {
        try withServer { server in
            let task = URLSession.shared.taskig.data(from: server.url("/slow?ms=5000"))
            let waiter = Background { task.awaitResult() }
            #expect(server.waitUntil(timeout: 3) { $0.arrivals["/slow"] == 1 })

            let cancelledAt = Date()
            task.cancel()
            let result = try #require(waiter.value(within: 3))
            // Beside two busy loops (load 13–25): 3–31 ms debug, 2–8 ms ThreadSanitizer; a waiter
            // left to the request would wait its 5 s.
            #expect(secondsSince(cancelledAt) < 1)
            guard case .failure(CancellableTaskError.taskWasCancelled) = result else {
                Issue.record("expected taskWasCancelled, got \(result)")
                return
            }
            #expect(task.isCancelled)
            #expect(server.waitUntil(timeout: 3) { $0.slowClosedByClient == 1 })
            // 4–31 ms debug, 7–8 ms ThreadSanitizer, beside two busy loops.
            #expect(secondsSince(cancelledAt) < 3)
            #expect(server.snapshot.slowAnswered == 0)
        }
    }

    @Test("cancel() reaches a run started with async(completion:)")
    func cancelAsyncRun() throws {
        try withServer { server in
            let task = URLSession.shared.taskig.data(from: server.url("/slow?ms=5000"))
            let outcome = Latch<Result<(Data, HTTPURLResponse), Error>>()
            task.async { outcome.fill($0) }
            #expect(server.waitUntil(timeout: 3) { $0.arrivals["/slow"] == 1 })
            task.cancel()
            let result = try #require(outcome.value(within: 3))
            guard case .failure(CancellableTaskError.taskWasCancelled) = result else {
                Issue.record("expected taskWasCancelled, got \(result)")
                return
            }
            #expect(server.waitUntil(timeout: 3) { $0.slowClosedByClient == 1 })
        }
    }

    @Test("a task cancelled before it runs sends nothing; copies share the cancellation")
    func cancelBeforeRunning() throws {
        try withServer { server in
            let task = URLSession.shared.taskig.data(from: server.url("/hello"))
            let copy = task
            copy.cancel()
            #expect(task.isCancelled)
            let result = try withWatchdog { task.awaitResult() }
            guard case .failure(CancellableTaskError.taskWasCancelled) = result else {
                Issue.record("expected taskWasCancelled, got \(result)")
                return
            }
            #expect(server.snapshot.arrivals.isEmpty)
        }
    }

    @Test("each run sends the request again")
    func coldTask() throws {
        try withServer { server in
            let task = URLSession.shared.taskig.data(from: server.url("/hello"))
            for _ in 0..<3 {
                let (data, _) = try withWatchdog { try task.await() }
                #expect(String(decoding: data, as: UTF8.self) == "hello, world")
            }
            #expect(server.snapshot.arrivals["/hello"] == 3)
        }
    }

    @Test("await(timeout:) throws timedOut and the server sees the connection close")
    func timeout() throws {
        try withServer { server in
            let task = URLSession.shared.taskig.data(from: server.url("/slow?ms=5000"))
            let started = Date()
            let result = try withWatchdog { Result { try task.await(timeout: 0.3) } }
            guard case .failure(TaskigError.timedOut) = result else {
                Issue.record("expected timedOut, got \(result)")
                return
            }
            // Beside two busy loops (load 13–25): 0.30–0.31 s debug, 0.32–0.35 s ThreadSanitizer
            // (the timeout is 0.3 s); the request would take 5 s.
            #expect(secondsSince(started) < 2)
            #expect(!task.isCancelled, "only the run was given up on")
            #expect(server.clientClosedEverySlowRequestItDidNotWaitFor())
        }
    }

    @Test("a failing awaitAll cancels the requests still in flight")
    func failFastCancelsTheOthers() throws {
        try withServer { server in
            let session = URLSession.shared.taskig
            // The failure comes after 0.3 s, when both long requests are surely at the server.
            let tasks = [
                session.data(from: server.url("/slow?ms=5000")),
                session.data(from: server.url("/slow?ms=5000")),
                session.data(from: server.url("/slow?ms=300")).validatingStatus(400..<600),
            ]
            let started = Date()
            let result = try withWatchdog { Result { try tasks.awaitAll(concurrency: 3) } }
            guard case .failure(TaskigURLError.badStatus(200, _, _)) = result else {
                Issue.record("expected badStatus(200), got \(result)")
                return
            }
            // Beside two busy loops (load 13–25): 0.32–0.35 s debug, 0.42–0.53 s ThreadSanitizer
            // (the failure comes at 0.3 s); the slow requests would take 5 s.
            #expect(secondsSince(started) < 3)
            #expect(!tasks[0].isCancelled && !tasks[1].isCancelled, "only their runs were given up on")
            #expect(server.clientClosedEverySlowRequestItDidNotWaitFor(answered: 1))
        }
    }

    @Test("awaitFirst returns the fastest answer and cancels the slower request")
    func raceCancelsTheLoser() throws {
        try withServer { server in
            let session = URLSession.shared.taskig
            let slow = session.data(from: server.url("/slow?ms=5000"))
            let fast = session.data(from: server.url("/slow?ms=200"))
            let (data, _) = try withWatchdog { try [slow, fast].awaitFirst() }
            #expect(String(decoding: data, as: UTF8.self) == "slow done")
            #expect(!slow.isCancelled, "only its run was given up on")
            #expect(server.clientClosedEverySlowRequestItDidNotWaitFor(answered: 1))
        }
    }

    @Test("a completion callback may block on another request of the same session")
    func nestedWaitInCallback() throws {
        try withServer { server in
            let session = URLSession.shared.taskig
            let outer = session.data(from: server.url("/hello"))
            let inner = session.data(from: server.url("/echo"))
            let nested = Latch<Result<(Data, HTTPURLResponse), Error>>()
            outer.async { _ in
                // Blocking here must not stop URLSession from delivering `inner`'s answer.
                nested.fill(inner.awaitResult())
            }
            let result = try #require(nested.value(within: 5))
            #expect(try result.get().1.value(forHTTPHeaderField: "X-Method") == "GET")
        }
    }

    @Test("a URLSessionTask cancelled by its session, not by the task, keeps URLError.cancelled")
    func cancelledBySession() throws {
        try withServer { server in
            let session = URLSession(configuration: .ephemeral)
            let task = session.taskig.data(from: server.url("/slow?ms=5000"))
            let waiter = Background { task.awaitResult() }
            #expect(server.waitUntil(timeout: 3) { $0.arrivals["/slow"] == 1 })
            session.invalidateAndCancel()
            let result = try #require(waiter.value(within: 3))
            let error = #expect(throws: URLError.self) { try result.get() }
            #expect(error?.code == .cancelled)
            #expect(!task.isCancelled)
        }
    }
}
