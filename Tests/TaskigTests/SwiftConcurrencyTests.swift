import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct SwiftConcurrencyTests {
    @Test func valueSuspendsUntilTheTaskFinishes() async throws {
        #expect(try await ThrowableTask { 6 * 7 }.value == 42)
        #expect(await Task { "plain" }.value == "plain")
        await #expect(throws: TestError(1)) { try await ThrowableTask<Int> { throw TestError(1) }.value }
        #expect(try await ThrowableTask { 1 }.map { $0 + 1 }.start().value == 2)
    }

    @Test func valueDoesNotBlockCooperativeThreads() async throws {
        // Sixteen Swift tasks wait at once for work that blocks until all sixteen wait (or 5 s).
        // Had the waits blocked, no more than the few cooperative threads could be waiting
        // together, and the work would wait out its time instead.
        let waiting = ConcurrencyProbe()
        let allWaiting = Barrier(count: 16)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<16 {
                group.addTask {
                    waiting.enter()
                    defer { waiting.exit() }
                    return try await ThrowableTask { () -> Int in
                        allWaiting.arriveAndWait(upTo: 5 * timingSlack)
                        return i
                    }.value
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(total == (0..<16).reduce(0, +))
        #expect(waiting.peak == 16 && allWaiting.waitsThatTimedOut == 0)
    }

    @Test func cancellingTheSwiftTaskCancelsTheTaskigRun() async throws {
        let observer = RunObserver()
        let taskigTask = ThrowableTask { () -> Int in
            observer.sleep(10) ? 1 : -1
        }
        // Started on Taskig's workers so that a busy cooperative pool cannot delay it; the
        // cancellation path under test is the same.
        let swiftTask = _Concurrency.Task(executorPreference: WorkerTaskExecutor.shared) {
            try await taskigTask.value
        }
        // Cancelled from the watchdog's thread, so that a busy cooperative pool cannot delay
        // the cancellation past the end of the body.
        let bodyStarted = try await withWatchdog(seconds: 20) { () -> Bool in
            guard observer.waitUntilStarted(within: 15) else { return false }
            swiftTask.cancel()
            return true
        }
        #expect(bodyStarted == true)
        await #expect(throws: CancellableTaskError.taskWasCancelled) { try await swiftTask.value }
        #expect(!taskigTask.isCancelled, "only the run is cancelled")
        #expect(try await withWatchdog { observer.waitUntilCancellationSeen() } == true, "the running body saw it")
    }

    @Test func asyncClosuresWorkWithBlockingWaitsAndCollections() async throws {
        let tasks = (0..<5).map { i in
            ThrowableTask { () async throws -> Int in
                try await _Concurrency.Task.sleep(nanoseconds: 5_000_000)
                return i
            }
        }
        #expect(try await withWatchdog { try tasks.awaitAll() } == [0, 1, 2, 3, 4])
        #expect(try await withWatchdog { try tasks[2].await() } == 2)
        #expect(try await withWatchdog { try tasks.awaitFirst() } != nil)
        #expect(
            try await withWatchdog { try tasks.awaitAll() } == [0, 1, 2, 3, 4], "losing a race leaves the tasks usable")
    }
}
