import Dispatch
import Foundation
import Testing

@testable import Taskig

/// Runs whose work is a plain call on the waiting thread, with no cell to complete.
@Suite struct InPlaceRunTests {
    @Test func aThrowableTaskAwaitedFromItsOnlyCopyRunsOnTheWaitingThread() async throws {
        let ranOnWaitingThread = try await withWatchdog {
            let waiter = ObjectIdentifier(Thread.current)
            return try ThrowableTask { ObjectIdentifier(Thread.current) == waiter }.await()
        }
        #expect(ranOnWaitingThread == true)
    }

    @Test func aThrowableTaskWithAnotherCopyRunsOnAWorkerSoThatCancelCanReleaseTheWaiter() async throws {
        let task = ThrowableTask { WorkerThread.isCurrent }
        let copy = task
        let ranOnWorker = try await withWatchdog { try copy.await() }
        #expect(ranOnWorker == true)
        #expect(!task.isCancelled)
    }

    @Test func theOnlyCopyOfACancelledTaskStillNeverStarts() async throws {
        let started = LockedValue(false)
        let result = try await withWatchdog { () -> Result<Int, Error> in
            var task = ThrowableTask { () -> Int in
                started.set(true)
                return 1
            }
            task.isCancelled = true
            return task.awaitResult()
        }
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result?.get() }
        #expect(!started.value)
    }

    @Test func aTaskCancelledWhileItRunsInALaneReportsTheCancellation() async throws {
        let holder = LockedValue<ThrowableTask<Int>?>(nil)
        let task = ThrowableTask { () -> Int in
            holder.value?.cancel()
            return 1
        }
        holder.set(task)
        defer { holder.set(nil) }
        let results = try #require(await withWatchdog { [task, ThrowableTask { 2 }].awaitAllResults() })
        #expect(throws: CancellableTaskError.taskWasCancelled) { try results[0].get() }
        #expect(try results[1].get() == 2)
    }

    @Test func inLanesACancelledTaskNeverStartsAndTheRestRun() async throws {
        let started = LockedValue(false)
        let cancelled = ThrowableTask { () -> Int in
            started.set(true)
            return 1
        }
        cancelled.cancel()
        let results = try #require(await withWatchdog { [ThrowableTask { 0 }, cancelled].awaitAllResults() })
        #expect(try results[0].get() == 0)
        #expect(throws: CancellableTaskError.taskWasCancelled) { try results[1].get() }
        #expect(!started.value)
    }

    @Test func tasksMadeWithoutAQueueRunOnTheGlobalQueue() async throws {
        let globalLabel = DispatchQueue.global().label
        #expect(Task { 1 }.executionQueue.label == globalLabel)
        #expect(Task<Int> { done in done(1) }.executionQueue.label == globalLabel)
        #expect(ThrowableTask { 1 }.executionQueue.label == globalLabel)
        #expect(ThrowableTask<Int> { done in done(.success(1)) }.executionQueue.label == globalLabel)
        #expect(ThrowableTask { () async throws -> Int in 1 }.executionQueue.label == globalLabel)
        #expect(try await ThrowableTask { () async throws -> Int in 1 }.value == 1)
    }
}
