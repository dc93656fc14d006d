import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct ThrowableTaskTests {
    @Test func returnsTheValueOrThrowsTheError() throws {
        #expect(throws: Never.self) { try ThrowableTask { 1 }.await() }
        #expect(throws: TestError(3)) { try ThrowableTask<Int> { throw TestError(3) }.await() }
    }

    @Test func awaitResultReportsBothOutcomes() throws {
        #expect(try ThrowableTask { "ok" }.awaitResult().get() == "ok")
        let failing = ThrowableTask<Int> { throw TestError(4) }
        guard case .failure(let error) = failing.awaitResult() else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? TestError == TestError(4))
    }

    @Test func callbackTasksReportAResult() async throws {
        let task = ThrowableTask<Int> { done in
            runLater(0.02) { done(.failure(TestError(5))) }
        }
        let result = try await withWatchdog { task.awaitResult() }
        #expect(throws: TestError(5)) { try result?.get() }
    }

    @Test func staticAwaitTakesAValueReturningClosure() throws {
        #expect(try ThrowableTask<String>.await { "ok" } == "ok")
        #expect(throws: TestError(6)) { try ThrowableTask<String>.await { throw TestError(6) } }
    }

    @Test func asyncDeliversTheResult() throws {
        let received = DispatchSemaphore(value: 0)
        let outcome = LockedValue<String?>(nil)
        ThrowableTask<Int> { throw TestError(7) }.async { result in
            if case .failure(let error) = result { outcome.set("\(error)") }
            received.signal()
        }
        #expect(received.wait(timeout: .now() + 10 * timingSlack) == .success)
        #expect(outcome.value == "\(TestError(7))")
    }

    @Test func wrapsSwiftConcurrencyCode() async throws {
        let task = ThrowableTask<String> { () async throws -> String in
            try await _Concurrency.Task.sleep(nanoseconds: 10_000_000)
            return "async"
        }
        #expect(try await withWatchdog { try task.await() } == "async")
        let failing = ThrowableTask<Int> { () async throws -> Int in throw TestError(8) }
        let thrown = try await withWatchdog { thrownError { try failing.await() } }
        #expect(thrown as? TestError == TestError(8))
    }

    @Test func cancellingAnAsyncTaskCancelsItsSwiftTask() async throws {
        let sawCancellation = LockedValue(false)
        let started = DispatchSemaphore(value: 0)
        let task = ThrowableTask<Int> { () async throws -> Int in
            started.signal()
            do {
                try await _Concurrency.Task.sleep(nanoseconds: 300_000_000_000)
            } catch is CancellationError {
                sawCancellation.set(true)
                throw CancellationError()
            }
            return 1
        }
        runLater(0) {
            _ = started.wait(timeout: .now() + 10)
            task.cancel()
        }
        let (result, seconds) = try #require(await withWatchdog(seconds: 20) { timed { task.awaitResult() } })
        // Beside two busy loops (load 13–25): 5–19 ms debug, 8–17 ms ThreadSanitizer.
        #expect(seconds < 10 * timingSlack, "without waiting for the 300 s sleep")
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result.get() }
        let seen = try await withWatchdog(seconds: 20) { () -> Bool in
            let deadline = DispatchTime.now() + 15
            while !sawCancellation.value && DispatchTime.now() < deadline { sleep(seconds: 0.01) }
            return sawCancellation.value
        }
        #expect(seen == true)
    }

    @Test func aCancelledAsyncBodyReportsTaskWasCancelledEvenWhenItRethrows() async throws {
        for _ in 0..<3 {
            let started = DispatchSemaphore(value: 0)
            let task = ThrowableTask<Int> { () async throws -> Int in
                started.signal()
                try await _Concurrency.Task.sleep(nanoseconds: 60_000_000_000)
                return 1
            }
            let future = task.start()
            let bodyStarted = try await withWatchdog { started.wait(timeout: .now() + 10 * timingSlack) == .success }
            #expect(bodyStarted == true)
            task.cancel()
            let result = try await withWatchdog { future.awaitResult() }
            #expect(throws: CancellableTaskError.taskWasCancelled) { try result?.get() }
        }
    }

    @Test func asyncWithoutACompletionRunsTheTask() throws {
        let ran = DispatchSemaphore(value: 0)
        let task = ThrowableTask<Void> { ran.signal() }
        task.async()
        #expect(ran.wait(timeout: .now() + 10 * timingSlack) == .success)
        let start = DispatchTime.now()
        task.async(delayBy: 0.05)
        #expect(ran.wait(timeout: .now() + 10 * timingSlack) == .success)
        #expect(secondsSince(start) >= 0.045)
    }

    @Test func taskResultIsResult() throws {
        let result: TaskResult<Int> = .success(1)
        #expect(try result.get() == 1)
    }
}
