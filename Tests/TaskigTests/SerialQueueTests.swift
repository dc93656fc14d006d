import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct SerialQueueTests {
    @Test func awaitingATaskOnTheQueueYouAreOnRunsItInPlace() async throws {
        let (queue, key) = markedQueue("taskig.test.serial", mark: 1)
        let value = try await withWatchdog {
            queue.sync {
                Task(executionQueue: queue) { DispatchQueue.getSpecific(key: key) ?? -1 }.await()
            }
        }
        #expect(value == 1)
    }

    @Test func throwingAndTimedWaitsOnTheSameQueueDoNotHang() async throws {
        let queue = DispatchQueue(label: "taskig.test.serial-throwing")
        let values = try await withWatchdog {
            try queue.sync {
                let task = ThrowableTask(executionQueue: queue) { 2 }
                return [try task.await(), try task.await(timeout: 5)]
            }
        }
        #expect(values == [2, 2])
    }

    @Test func aTimedWaitOnTheQueueYouAreOnCancelsTheRunItRunsInPlaceAtItsDeadline() async throws {
        // The work runs in place, so the wait cannot leave it behind; before the deadline
        // cancelled such a run, both waits returned the work's value after its whole 30 s.
        let queue = DispatchQueue(label: "taskig.test.serial-timed")
        let observer = RunObserver()
        let slow = ThrowableTask(executionQueue: queue) { observer.sleep(30) }
        let outcomes = try #require(
            await withWatchdog {
                queue.sync { [Result { try slow.await(timeout: 0.05) }, Result { try slow.timeout(0.05).await() }] }
            })
        #expect(outcomes.map { isTimedOut($0.failure) } == [true, true])
        // Every run that started saw its cancellation. A run may not start at all: its
        // deadline counts from the wait's start, and under ThreadSanitizer beside two busy
        // loops the launch took past 50 ms before the job ran here (once in nine runs of the
        // loop), and a run cancelled before it starts never starts.
        #expect(observer.cancellationsSeen == observer.runs, "runs: \(observer.runs)")
    }

    @Test func aQueueThatTargetsTheTasksQueueCountsAsBeingOnIt() async throws {
        let target = DispatchQueue(label: "taskig.test.target")
        let child = DispatchQueue(label: "taskig.test.child", target: target)
        let value = try await withWatchdog {
            child.sync { Task(executionQueue: target) { 3 }.await() }
        }
        #expect(value == 3)
    }

    @Test func aQueueThatTargetsTheTasksQueueCountsEvenWhenATaskWasMadeForItToo() async throws {
        // A task made for `child` tags it, and its tag hid the target's: the wait sent the
        // work to `target`, which waited for the wait.
        let target = DispatchQueue(label: "taskig.test.tagged-target")
        let child = DispatchQueue(label: "taskig.test.tagged-child", target: target)
        let values = try await withWatchdog { () -> [Int] in
            let first = Task(executionQueue: child) { 1 }.await()
            let second = child.sync { Task(executionQueue: target) { 2 }.await() }
            return [first, second]
        }
        #expect(values == [1, 2])
    }

    @Test func collectionsWhoseLanesQueueIsTheCurrentOneRunInPlace() async throws {
        let queue = DispatchQueue(label: "taskig.test.serial-lanes")
        let values = try await withWatchdog {
            queue.sync { (0..<5).map { i in Task(executionQueue: queue) { i } }.awaitAll(queue) }
        }
        #expect(values == [0, 1, 2, 3, 4])
    }

    @Test func aCollectionWaitOnASerialQueueRunsItsTasksForThatQueueInPlace() async throws {
        let queue = DispatchQueue(label: "taskig.test.serial-collection")
        let blocking = try await withWatchdog {
            queue.sync {
                (0..<2).map { i in
                    Task(executionQueue: queue) { () -> Int in
                        usleep(100)
                        return i
                    }
                }.awaitAll()
            }
        }
        #expect(blocking == [0, 1])
        // Trivial bodies, round after round: lanes on workers must never send them to the queue.
        let rounds = try await withWatchdog(seconds: 20) { () -> Bool in
            (0..<500).allSatisfy { _ in
                queue.sync { (0..<4).map { i in Task(executionQueue: queue) { i } }.awaitAll() } == [0, 1, 2, 3]
            }
        }
        #expect(rounds == true)
        let throwing = try await withWatchdog {
            try queue.sync {
                try (0..<3).map { i in ThrowableTask(executionQueue: queue) { i } }.awaitAll()
            }
        }
        #expect(throwing == [0, 1, 2])
        let mixed = try await withWatchdog {
            queue.sync {
                [Task(executionQueue: queue) { 1 }, Task { 2 }, Task(executionQueue: queue) { 3 }].awaitAll()
            }
        }
        #expect(mixed == [1, 2, 3])
    }

    @Test func theFutureOfATaskOnTheQueueYouAreOnStartsInPlaceWhenAwaited() async throws {
        // `start()` sends the work to the queue; a wait that holds that queue used to wait for
        // it for good, or until its timeout.
        let (queue, key) = markedQueue("taskig.test.serial-future", mark: 4)
        let values = try await withWatchdog {
            try queue.sync { () -> [Int?] in
                let task = ThrowableTask(executionQueue: queue) { DispatchQueue.getSpecific(key: key) }
                let untimed = try task.start().await()
                let timed = try task.start().await(timeout: 5)
                let inACollection = try [task.start(), task.start()].awaitAll()
                let (first, second) = try awaitAll(task.start(), ThrowableTask { 4 })
                return [untimed, timed] + inACollection + [first, second]
            }
        }
        #expect(values == [4, 4, 4, 4, 4, 4])
    }

    @Test func aComposedTaskWithAStepForTheQueueYouAreOnRunsInPlace() async throws {
        // The chain ran on a worker, whose step for the queue waited for the queue the caller
        // held: every wait below hung, or timed out.
        let (queue, key) = markedQueue("taskig.test.serial-chain", mark: 1)
        let values = try await withWatchdog {
            try queue.sync { () -> [Int] in
                let base = ThrowableTask(executionQueue: queue) { DispatchQueue.getSpecific(key: key) ?? -100 }
                let composed = base.map { $0 + 1 }
                let shared = try composed.await()
                let timed = try base.map { $0 + 2 }.await(timeout: 5)
                let generic = try awaitThroughGenericCode(base.map { $0 + 3 })
                let collection = try [base.map { $0 + 4 }, base.map { $0 + 5 }].awaitAll()
                let folded = try [10, 20].awaitReduce(0) { sum, n in base.map { sum + n + $0 } }
                _ = composed
                return [shared, timed, generic] + collection + [folded]
            }
        }
        #expect(values == [2, 3, 4, 5, 6, 32])
    }

    @Test func aWorkerWaitingForTheFutureOfASerialQueuesTaskLeavesItToThatQueue() async throws {
        // A worker used to start such work itself, off its queue, beside the queue's other
        // blocks.
        let (queue, key) = markedQueue("taskig.test.serial-future-elsewhere", mark: 5)
        let value = try await withWatchdog {
            try ThrowableTask { () -> Int? in
                let future = ThrowableTask(executionQueue: queue) { DispatchQueue.getSpecific(key: key) }.start()
                return try future.await()
            }.start().await()
        }
        #expect(value == 5)
    }

    @Test func awaitingFromElsewhereRunsTheWorkOnTheQueue() async throws {
        let (queue, key) = markedQueue("taskig.test.serial-remote", mark: 9)
        let value = try await withWatchdog {
            Task(executionQueue: queue) { DispatchQueue.getSpecific(key: key) }.await()
        }
        #expect(value == 9)
    }

    // Rule 2 of "Waiting safely": Taskig work bound for a queue that a waiting thread holds is handed
    // to that thread, whoever made it and wherever it was made.

    @Test func aFlatMapsInnerTaskMadeAtRunTimeForTheWaitersQueueRunsOnTheWaiter() async throws {
        let (queue, key) = markedQueue("taskig.test.serial-flat-map", mark: 3)
        let base = ThrowableTask(executionQueue: queue) { DispatchQueue.getSpecific(key: key) ?? -1 }
        let value = try await withWatchdog {
            try queue.sync { try ThrowableTask.delay(0.01).flatMap { _ in base }.await() }
        }
        #expect(value == 3)
    }

    @Test func aStepForTheWaitersQueueAfterACallbackRunsOnTheWaiter() async throws {
        let (queue, key) = markedQueue("taskig.test.serial-step-after-callback", mark: 4)
        let later = ThrowableTask<Int> { done in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { done(.success(10)) }
        }
        let values = try await withWatchdog {
            try queue.sync {
                [
                    try later.map(on: queue) { $0 + (DispatchQueue.getSpecific(key: key) ?? -100) }.await(),
                    try later.map(on: queue) { $0 + (DispatchQueue.getSpecific(key: key) ?? -100) }.await(timeout: 5),
                ]
            }
        }
        #expect(values == [14, 14])
    }

    @Test func workForTheWaitersQueueSentFromAWorkerRunsOnTheWaiter() async throws {
        let (queue, key) = markedQueue("taskig.test.serial-from-worker", mark: 5)
        let inner = ThrowableTask(executionQueue: queue) { DispatchQueue.getSpecific(key: key) ?? -1 }
        let value = try await withWatchdog {
            try queue.sync {
                // The deadline leaves the outer task to a worker, which waits for a task of the
                // queue this thread holds.
                try ThrowableTask { try inner.await() }.await(timeout: 5)
            }
        }
        #expect(value == 5)
    }

    @Test func aQueueFirstTaggedWhileItsHolderWaitsIsServed() async throws {
        // No task was made for this queue before the wait began: its first one is made on a
        // worker, during the wait.
        let (queue, key) = markedQueue("taskig.test.serial-tagged-during-wait", mark: 7)
        let value = try await withWatchdog {
            try queue.sync {
                try ThrowableTask {
                    try ThrowableTask(executionQueue: queue) { DispatchQueue.getSpecific(key: key) ?? -1 }.await()
                }.await(timeout: 5)
            }
        }
        #expect(value == 7)
    }

    @Test func aFutureStartedForTheQueueBeforeTheWaitBeganRunsOnTheWaiter() async throws {
        let (queue, key) = markedQueue("taskig.test.serial-future-before-wait", mark: 6)
        let values = try await withWatchdog { () -> [Int] in
            try queue.sync {
                let futures = (0..<3).map { i in
                    ThrowableTask(executionQueue: queue) { i + (DispatchQueue.getSpecific(key: key) ?? -100) }.start()
                }
                // A global task awaited with a deadline runs on a worker: this thread only
                // waits, and serves the queue it holds meanwhile.
                _ = try ThrowableTask { usleep(1_000) }.await(timeout: 5)
                return try futures.map { try $0.await() }
            }
        }
        #expect(values == [6, 7, 8])
    }

    @Test func theHandOffKeepsNoJobOnceTheQueueRanThem() async throws {
        let queue = DispatchQueue(label: "taskig.test.serial-hand-off-drains")
        let ran = LockedValue(0)
        for _ in 0..<100 {
            ThrowableTask(executionQueue: queue) { ran.set(ran.value + 1) }.async()
        }
        let drained = try await withWatchdog { () -> Bool in
            queue.sync {}
            return true
        }
        #expect(drained == true)
        #expect(ran.value == 100)
    }
}

/// Awaits `task` as code that only knows it is some ``ThrowableTaskType``.
private func awaitThroughGenericCode<Work: ThrowableTaskType>(_ task: Work) throws -> Work.ResultType {
    try task.await()
}

/// A serial queue that holds `mark` under the returned key, so that work can tell it runs there.
private func markedQueue(_ label: String, mark: Int) -> (DispatchQueue, DispatchSpecificKey<Int>) {
    let queue = DispatchQueue(label: label)
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: mark)
    return (queue, key)
}
