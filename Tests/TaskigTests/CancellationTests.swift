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
        // The body ignores the cancellation and ends only once the waiter has returned (or past
        // the watchdog): a waiter that waited for it would hang.
        let waiterReturned = Gate()
        let task = ThrowableTask { () -> Int in
            waiterReturned.wait(upTo: 30 * timingSlack)
            return 1
        }
        runLater(0.05) { task.cancel() }
        // A deadline leaves the body to a worker: the waiter only waits, and is released at once.
        let (result, seconds) = try #require(
            await withWatchdog { timed { Result { try task.await(timeout: 60 * timingSlack) } } })
        waiterReturned.open()
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result.get() }
        // Beside two busy loops (load 13–25): 0.051–0.052 s debug, 0.035–0.051 s ThreadSanitizer (the cancel
        // comes at 0.05 s); a waiter that waited for the body would hang.
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
        // The body ignores the cancellation and ends only once the callback came (or after
        // 60 s): a callback that waited for the body would not come within the wait below.
        let callbackCame = Gate()
        let task = ThrowableTask { () -> Int in
            callbackCame.wait(upTo: 60 * timingSlack)
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
        #expect(received.wait(timeout: .now() + 10 * timingSlack) == .success)
        callbackCame.open()
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

    /// "Cancelling tasks": a caller that runs a lane itself (`awaitAllResults` waits for every task, so
    /// its caller runs one) returns once the task of its own lane ends, without waiting for the
    /// body of a task cancelled for good on a worker's lane.
    @Test func aCallerRunningALaneIsReleasedOnceItsOwnTaskEnds() async throws {
        let bodies = CancelledWhileRunning()
        let tasks = (0..<2).map { i in ThrowableTask { bodies.body(i, ownPollsCancellation: false) } }
        runLater(0) {
            guard bodies.waitUntilTheWaitersOwnStarted(), let elsewhere = bodies.firstStartedElsewhere() else { return }
            tasks[elsewhere].cancel()
            bodies.letTheWaitersOwnReturn()
        }
        let results = try #require(
            await withWatchdog { () -> [Result<Int, Error>] in
                bodies.waitHere()
                return tasks.awaitAllResults(concurrency: 2)
            })
        bodies.letTheOthersReturn()
        let elsewhere = try #require(bodies.firstStartedElsewhere())
        #expect(isCancellation(results[elsewhere].failure))
        #expect(try results[1 - elsewhere].get() == 1 - elsewhere)
    }

    /// "Cancelling tasks": a caller whose own lane runs the cancelled body returns when that body returns
    /// (it sees its run cancelled), without waiting for the same task's body on a worker.
    @Test func aCallerRunningTheCancelledBodyReturnsWhenThatBodyReturns() async throws {
        let bodies = CancelledWhileRunning()
        let task = ThrowableTask { bodies.body(0) }
        runLater(0) {
            guard bodies.waitUntilTheWaitersOwnStarted(), bodies.firstStartedElsewhere() != nil else { return }
            task.cancel()
        }
        let results = try #require(
            await withWatchdog { () -> [Result<Int, Error>] in
                bodies.waitHere()
                return [task, task].awaitAllResults(concurrency: 2)
            })
        bodies.letTheOthersReturn()
        #expect(results.count == 2 && results.allSatisfy { isCancellation($0.failure) })
    }

    /// "Cancelling tasks": a collection wait nested in a task on one of Taskig's workers runs a lane
    /// itself; it is released once its own lane's task ends, not when the body of a task
    /// cancelled for good on another lane does.
    @Test func aNestedWaitIsReleasedOnceItsOwnLanesTaskEnds() async throws {
        let bodies = CancelledWhileRunning()
        let tasks = (0..<2).map { i in ThrowableTask { bodies.body(i, ownPollsCancellation: false) } }
        runLater(0) {
            guard bodies.waitUntilTheWaitersOwnStarted(), let elsewhere = bodies.firstStartedElsewhere() else { return }
            tasks[elsewhere].cancel()
            bodies.letTheWaitersOwnReturn()
        }
        let outer = ThrowableTask { () -> [Int] in
            bodies.waitHere()
            return try tasks.awaitAll(concurrency: 2)
        }
        // A wait with a deadline leaves the outer task's work to a worker (rule 3 of "Waiting safely").
        let result = try #require(await withWatchdog { Result { try outer.await(timeout: 60 * timingSlack) } })
        bodies.letTheOthersReturn()
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result.get() }
    }
}

@Suite struct CurrentTaskCancellationTests {
    @Test func aBodyCanCheckItsOwnTaskWithoutAReference() async throws {
        let started = DispatchSemaphore(value: 0)
        let bodyEnded = DispatchSemaphore(value: 0)
        // 10 ms steps for 30 s: a body that did not stop at its next check would outlast the
        // wait for its end below.
        let steps = Int(3_000 * timingSlack)
        let task = ThrowableTask { () -> Int in
            defer { bodyEnded.signal() }
            started.signal()
            for _ in 1...steps {
                try ThrowableTask.checkCancellation()
                sleep(seconds: 0.01)
            }
            return steps
        }
        let future = task.start()
        // Cancelled from the watchdog's thread, so that a busy cooperative pool cannot delay
        // the cancellation past the end of the body.
        let result = try await withWatchdog { () -> Result<Int, Error>? in
            guard started.wait(timeout: .now() + 10 * timingSlack) == .success else { return nil }
            task.cancel()
            return future.awaitResult()
        }
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result??.get() }
        let ended = try await withWatchdog { bodyEnded.wait(timeout: .now() + 10 * timingSlack) == .success }
        #expect(ended == true, "the body stopped at its next check")
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
