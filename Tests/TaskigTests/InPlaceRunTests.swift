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

    @Test func aStoredThrowableTaskWithOtherCopiesRunsOnTheWaitingThread() async throws {
        let tasks = (0..<3).map { i in ThrowableTask { (i, ObjectIdentifier(Thread.current)) } }
        let holder = TaskHolder(task: tasks[1])
        let outcome = try await withWatchdog { () -> (ran: [Int], onWaiter: Bool) in
            let waiter = ObjectIdentifier(Thread.current)
            var ran: [Int] = []
            var onWaiter = true
            for task in tasks + [holder.task] {
                let (value, thread) = try task.await()
                ran.append(value)
                onWaiter = onWaiter && thread == waiter
            }
            return (ran, onWaiter)
        }
        #expect(outcome?.ran == [0, 1, 2, 1])
        #expect(outcome?.onWaiter == true)
        #expect(!tasks[1].isCancelled)
    }

    @Test func aWaiterRunningTheWorkItselfHearsOfACancelOnceTheWorkReturns() async throws {
        let started = DispatchSemaphore(value: 0)
        let workThread = LockedValue<ObjectIdentifier?>(nil)
        let sawCancellation = LockedValue(false)
        let task = ThrowableTask { () -> Int in
            workThread.set(ObjectIdentifier(Thread.current))
            started.signal()
            let giveUp = DispatchTime.now() + 5
            while !ThrowableTask.isCurrentTaskCancelled && DispatchTime.now() < giveUp { usleep(1_000) }
            sawCancellation.set(ThrowableTask.isCurrentTaskCancelled)
            return 1
        }
        DispatchQueue.global().async {
            started.wait()
            usleep(20_000)
            task.cancel()
        }
        let waited = try await withWatchdog { () -> (Result<Int, Error>, ObjectIdentifier) in
            (task.awaitResult(), ObjectIdentifier(Thread.current))
        }
        let (result, waiter) = try #require(waited)
        // The work ran on the waiter, saw its run cancelled and returned; the waiter reports it.
        #expect(workThread.value == waiter)
        #expect(sawCancellation.value)
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result.get() }
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

/// A task kept in a property, as users keep them.
private final class TaskHolder<Value>: Sendable {
    let task: ThrowableTask<Value>

    init(task: ThrowableTask<Value>) {
        self.task = task
    }
}
