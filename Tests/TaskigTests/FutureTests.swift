import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct FutureTests {
    @Test func startRunsAtOnceAndEveryWaiterSeesTheSameResult() async throws {
        let runs = LockedValue(0)
        let started = DispatchSemaphore(value: 0)
        let future = ThrowableTask { () -> Int in
            started.signal()
            sleep(seconds: 0.05)
            return runs.update {
                $0 += 1; return $0
            }
        }.start()
        #expect(
            started.wait(timeout: .now() + 10 * timingSlack) == .success, "a started task runs without being awaited")
        let values = try await withWatchdog {
            (0..<20).map { _ in Task { try! future.await() } }.awaitAll()
        }
        #expect(values == Array(repeating: 1, count: 20))
        #expect(try await withWatchdog { try future.await() } == 1, "a late waiter sees the same value")
        #expect(runs.value == 1)
        #expect(try future.result?.get() == 1)
    }

    @Test func failuresAreMemoizedToo() throws {
        let future = ThrowableTask<Int> { throw TestError(3) }.start()
        #expect(throws: TestError(3)) { try future.await() }
        #expect(throws: TestError(3)) { try future.await() }
    }

    @Test func cancellingReleasesWaitersAndCancelsTheRun() async throws {
        let observer = RunObserver()
        // Past the watchdog unless the cancellation reaches it.
        let task = ThrowableTask { () -> Int in
            observer.sleep(30 * timingSlack) ? 1 : -1
        }
        let future = task.start()
        let continuation = future.map { $0 + 1 }
        let cancelReturned = DispatchSemaphore(value: 0)
        runLater(0) {
            // Once the work runs: a run cancelled before it starts never starts.
            _ = observer.waitUntilStarted()
            future.cancel()
            cancelReturned.signal()
        }
        let (result, seconds) = try #require(await withWatchdog { timed { future.awaitResult() } })
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result.get() }
        // Beside two busy loops (load 13–25): 5–11 ms debug, under 0.1 ms ThreadSanitizer; a waiter left to the
        // body would wait its 30 s (× slack).
        #expect(seconds < 1 * timingSlack)
        _ = try await withWatchdog { cancelReturned.wait() }
        #expect(
            try await withWatchdog { observer.waitUntilCancellationSeen() } == true, "the future's run is cancelled")
        #expect(!task.isCancelled, "the task itself is not")
        #expect(future.isCancelled)
        #expect(throws: CancellableTaskError.taskWasCancelled) { try continuation.await() }
    }

    @Test func aWaiterThatTimesOutGivesUpOnlyItsOwnWait() async throws {
        let future = ThrowableTask { () -> Int in
            sleep(seconds: 0.3)
            return 8
        }.start()
        #expect(isTimedOut((try await withWatchdog { thrownError { try future.await(timeout: 0.02) } }) ?? nil))
        #expect(!future.isCancelled)
        #expect(try await withWatchdog { try future.await() } == 8)
    }

    @Test func cancellingAfterTheOutcomeChangesNothing() throws {
        let task = ThrowableTask { 5 }
        let future = task.start()
        #expect(try future.await() == 5)
        future.cancel()
        #expect(try future.await() == 5)
        #expect(!future.isCancelled)
        #expect(!task.isCancelled)
    }

    @Test func awaitingAFutureFromItsOwnWorkFailsInsteadOfHanging() async throws {
        let holder = LockedValue<Future<Int>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let future = ThrowableTask { () -> Int in
            ready.wait()
            return try holder.value!.await() + 1
        }.start()
        holder.set(future)
        ready.signal()
        let result = try await withWatchdog { future.awaitResult() }
        guard case .failure(TaskigError.awaitedFromItsOwnWork)? = result else {
            Issue.record("expected TaskigError.awaitedFromItsOwnWork, got \(String(describing: result))")
            return
        }
    }

    /// A started continuation's run cancelled while its source is pending: the step never runs,
    /// even once the source has its outcome.
    @Test func aCancelledContinuationNeverRunsItsStepWhenItsSourceResolvesLater() async throws {
        let promise = Promise<Int>()
        let stepRan = LockedValue(false)
        let future = promise.future.map { value -> Int in
            stepRan.set(true)
            return value + 1
        }.start()
        future.cancel()
        #expect(throws: CancellableTaskError.taskWasCancelled) { try future.await() }
        // The continuations of a promise run before `resolve` returns.
        promise.resolve(1)
        #expect(!stepRan.value, "a run cancelled before its step starts never runs it")
        #expect(throws: CancellableTaskError.taskWasCancelled) { try future.await() }
    }

    /// A `finally` of a started continuation runs when the future is cancelled, while its
    /// source is still pending, and only once.
    @Test func aStartedContinuationsFinallyRunsOnceWhenTheFutureIsCancelled() async throws {
        let promise = Promise<Int>()
        let cleanups = LockedValue(0)
        let cleanedUp = DispatchSemaphore(value: 0)
        let future = promise.future.map { $0 + 1 }.finally {
            cleanups.update { $0 += 1 }
            cleanedUp.signal()
        }.start()
        future.cancel()
        #expect(
            try await withWatchdog { cleanedUp.wait(timeout: .now() + 10 * timingSlack) } == .success,
            "finally runs when the run is cancelled, not when the source resolves")
        promise.resolve(1)
        #expect(throws: CancellableTaskError.taskWasCancelled) { try future.await() }
        #expect(cleanups.value == 1)
    }

    /// A step that waits for its queue after the run was cancelled skips the cancellation as
    /// `map` does, and a `finally` after it still runs, once.
    @Test func aStepThatWaitedForItsQueueSkipsWhenTheRunWasCancelledMeanwhile() async throws {
        let promise = Promise<Int>()
        let queue = DispatchQueue(label: "FutureTests.heldQueue")
        let release = DispatchSemaphore(value: 0)
        queue.async { release.wait() }
        let stepRan = LockedValue(false)
        let cleanups = LockedValue(0)
        let future = promise.future.map { $0 + 1 }
            .map(on: queue) { value -> Int in
                stepRan.set(true)
                return value
            }
            .finally(on: queue) { cleanups.update { $0 += 1 } }
            .start()
        // The first step runs here; the second waits behind the held queue.
        promise.resolve(1)
        future.cancel()
        release.signal()
        _ = try await withWatchdog { queue.sync {} }
        #expect(throws: CancellableTaskError.taskWasCancelled) { try future.await() }
        #expect(!stepRan.value, "a step that starts after its run was cancelled skips it")
        #expect(cleanups.value == 1)
    }

    @Test func futuresComposeAndJoinCollections() throws {
        let futures = (1...5).map { i in ThrowableTask { i }.start() }
        #expect(try futures.awaitAll() == [1, 2, 3, 4, 5])
        #expect(try futures[0].map { $0 * 100 }.await() == 100)
    }
}
