import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct CancellationTests {
    @Test func aTaskCancelledBeforeItStartsNeverStarts() throws {
        let started = LockedValue(false)
        let task = ThrowableTask { () -> Int in
            started.set(true)
            return 1
        }
        task.cancel()
        #expect(throws: CancellableTaskError.taskWasCancelled) { try task.await() }
        #expect(!started.value)
    }

    @Test func waitersThatDoNotRunTheBodyReturnPromptlyWithoutWaitingForIt() async throws {
        let task = ThrowableTask { () -> Int in
            sleep(seconds: 3)
            return 1
        }
        runLater(0.05) { task.cancel() }
        // A deadline leaves the body to a worker: the waiter only waits, and is released at once.
        let (result, seconds) = try #require(
            await withWatchdog { timed { Result { try task.await(timeout: 30) } } })
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result.get() }
        #expect(seconds < 1 * timingSlack)
    }

    @Test func aRunningBodyCanPollACopy() async throws {
        let stoppedEarly = LockedValue(false)
        let started = DispatchSemaphore(value: 0)
        let box = LockedValue<ThrowableTask<Int>?>(nil)
        let task = ThrowableTask { () -> Int in
            started.signal()
            let deadline = DispatchTime.now() + 5
            while DispatchTime.now() < deadline {
                if box.value?.isCancelled == true {
                    stoppedEarly.set(true)
                    throw CancellableTaskError.taskWasCancelled
                }
                sleep(seconds: 0.005)
            }
            return 1
        }
        box.set(task)
        let copy = task
        let cancelled = try await withWatchdog { () -> Result<Int, Error> in
            // Cancel once the body runs, so that it is the body's polling that is tested,
            // however late a loaded machine starts it.
            runLater(0) {
                started.wait()
                var cancelling = copy
                cancelling.isCancelled = true
            }
            return task.awaitResult()
        }
        #expect(throws: CancellableTaskError.taskWasCancelled) { try cancelled?.get() }
        let stopped = try await withWatchdog { () -> Bool in
            let deadline = DispatchTime.now() + 5
            while !stoppedEarly.value && DispatchTime.now() < deadline { sleep(seconds: 0.01) }
            return stoppedEarly.value
        }
        #expect(stopped == true)
        #expect(task.isCancelled)
    }

    @Test func cancellingTwiceIsHarmless() throws {
        var task = ThrowableTask { 1 }
        task.cancel()
        task.cancel()
        task.isCancelled = true
        #expect(task.isCancelled)
        #expect(throws: CancellableTaskError.taskWasCancelled) { try task.await() }
    }

    @Test func asyncCallbacksHearOfCancellationPromptly() throws {
        let task = ThrowableTask { () -> Int in
            sleep(seconds: 1.5)
            return 1
        }
        let received = DispatchSemaphore(value: 0)
        let outcome = LockedValue<Result<Int, Error>?>(nil)
        task.async { result in
            outcome.set(result)
            received.signal()
        }
        sleep(seconds: 0.05)
        task.cancel()
        #expect(received.wait(timeout: .now() + 1) == .success)
        #expect(throws: CancellableTaskError.taskWasCancelled) { try outcome.value?.get() }
    }

    @Test func awaitingAFinishedTaskAgainRunsItAgain() throws {
        let runs = LockedValue(0)
        let task = ThrowableTask {
            runs.update {
                $0 += 1; return $0
            }
        }
        #expect(try task.await() == 1)
        #expect(try task.await() == 2)
        task.cancel()
        #expect(throws: CancellableTaskError.taskWasCancelled) { try task.await() }
        #expect(runs.value == 2)
    }

    @Test func theErrorIsReadable() throws {
        #expect("\(CancellableTaskError.taskWasCancelled)".contains("cancelled"))
    }
}

@Suite struct CurrentTaskCancellationTests {
    @Test func aBodyCanCheckItsOwnTaskWithoutAReference() async throws {
        let stepsDone = LockedValue(0)
        let started = DispatchSemaphore(value: 0)
        let task = ThrowableTask { () -> Int in
            started.signal()
            for step in 1...1000 {
                try ThrowableTask.checkCancellation()
                stepsDone.set(step)
                sleep(seconds: 0.01)
            }
            return 1000
        }
        let future = task.start()
        // Cancelled from the watchdog's thread, so that a busy cooperative pool cannot delay
        // the cancellation past the end of the body.
        let result = try await withWatchdog { () -> Result<Int, Error>? in
            guard started.wait(timeout: .now() + 5) == .success else { return nil }
            task.cancel()
            return future.awaitResult()
        }
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result??.get() }
        let settled = try await withWatchdog { () -> Int in
            sleep(seconds: 0.1)
            return stepsDone.value
        }
        #expect((settled ?? 1000) < 1000, "the body stopped at its next check")
    }

    @Test func outsideATaskNothingIsCancelled() throws {
        #expect(!ThrowableTask.isCurrentTaskCancelled)
        try ThrowableTask.checkCancellation()
    }

    @Test func continuationsSeeTheStateOfTheirComposedTask() throws {
        let seen = LockedValue<Bool?>(nil)
        let task = ThrowableTask { 1 }.map { value -> Int in
            seen.set(ThrowableTask.isCurrentTaskCancelled)
            return value
        }
        #expect(try task.await() == 1)
        #expect(seen.value == false)
    }
}
