import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct CompletionsTests {

    @Test func outcomesComeInTheOrderTheTasksSettle() async throws {
        // The tasks complete in the order 1, 3, 2, 0, each only once the loop has handed out
        // the one before: a loop that waited for input order would wait for task 0 for good.
        // They complete from threads of their own, so that no other test can hold up their
        // completion (as Dispatch's threads can be held), and no time decides the order.
        let order = [1, 3, 2, 0]
        let mayComplete = order.map { _ in DispatchSemaphore(value: 0) }
        mayComplete[order[0]].signal()
        let tasks = order.indices.map { i in
            ThrowableTask<Int> { completion in
                Thread.detachNewThread {
                    mayComplete[i].wait()
                    completion(.success(i))
                }
            }
        }
        let outcomes = try await withWatchdog(seconds: 60) { () -> [(Int, Int)] in
            var outcomes: [(Int, Int)] = []
            for (offset, result) in tasks.completions() {
                outcomes.append((offset, try result.get()))
                if outcomes.count < order.count { mayComplete[order[outcomes.count]].signal() }
            }
            return outcomes
        }
        #expect(outcomes?.map(\.0) == order)
        #expect(outcomes?.map(\.1) == order, "each offset comes with its own task's value")
    }

    @Test func aLoopNestedInATaskRunsTasksItselfAndGetsEveryOutcome() async throws {
        let outer = ThrowableTask { () -> [Int] in
            let inner = (0..<20).map { i in
                ThrowableTask { () -> Int in
                    usleep(1_000); return i
                }
            }
            return inner.completions(concurrency: 4).compactMap { try? $0.result.get() }
        }
        let values = try await withWatchdog { try outer.start().await() }
        #expect(values?.sorted() == Array(0..<20))
    }

    @Test func eachOutcomeIsHandedOutAsSoonAsItsTaskSettles() async throws {
        // The slow task ends only once the loop has handed out the quick one (or past the
        // watchdog): a loop that held the quick one back for the slow one would hang.
        let quickHandedOut = Gate()
        let tasks = [
            ThrowableTask { 0 },
            ThrowableTask { () -> Int in
                quickHandedOut.wait(upTo: 30 * timingSlack)
                return 1
            },
        ]
        let offsets = try await withWatchdog { () -> [Int] in
            var iterator = tasks.completions().makeIterator()
            let first = iterator.next()?.offset
            quickHandedOut.open()
            return [first, iterator.next()?.offset].compactMap { $0 }
        }
        #expect(offsets == [0, 1], "the quick task was not held back by the slow one")
    }

    @Test func atMostConcurrencyTasksRunAtOnce() async throws {
        // The first two tasks wait for each other, up to 5 s: they meet once two run at once,
        // however long a loaded pool takes to give a second lane a thread; a loop that never ran
        // two at once would leave them waiting out their time.
        let probe = ConcurrencyProbe()
        let barrier = Barrier(count: 2)
        let tasks = (0..<24).map { i in
            ThrowableTask { () -> Int in
                probe.measure { i < 2 ? barrier.arriveAndWait(upTo: 5 * timingSlack) : sleep(seconds: 0.005) }
                return i
            }
        }
        let offsets = try await withWatchdog { tasks.completions(concurrency: 4).map(\.offset) }
        #expect(offsets?.sorted() == Array(0..<24))
        #expect(probe.peak <= 4)
        #expect(barrier.waitsThatTimedOut == 0 && probe.peak >= 2, "the tasks ran side by side")
    }

    @Test func failuresAreElementsNotThrownErrors() async throws {
        let tasks = (0..<6).map { i in
            ThrowableTask { () -> Int in
                if i % 2 == 1 { throw TestError(i) }
                return i
            }
        }
        let outcomes = try #require(await withWatchdog { Array(tasks.completions()) })
        #expect(outcomes.count == 6)
        for (offset, result) in outcomes {
            switch result {
            case .success(let value): #expect(offset % 2 == 0 && value == offset)
            case .failure(let error): #expect(error as? TestError == TestError(offset))
            }
        }
    }

    /// Task 0 returns at once; the others sleep 5 s unless their run is cancelled.
    private func oneQuickThenSlow(_ observers: [RunObserver]) -> [ThrowableTask<Int>] {
        [ThrowableTask { 0 }]
            + observers.enumerated().map { i, observer in
                // Past the loop's wait below unless the cancellation reaches it.
                ThrowableTask { () -> Int in
                    observer.sleep(30 * timingSlack)
                    return i + 1
                }
            }
    }

    /// After a loop left early while task 1 ran: every run still going (of tasks 1 to 3, under
    /// `concurrency: 3` with task 0 done) sees its cancellation, and no later task starts.
    private func expectRunsCancelledAndNothingMoreStarted(_ observers: [RunObserver]) {
        #expect(observers[0].waitUntilCancellationSeen())
        #expect(observers[1...2].allSatisfy { $0.runs == 0 || $0.waitUntilCancellationSeen() })
        Thread.sleep(forTimeInterval: 0.1)
        #expect(observers.dropFirst(3).allSatisfy { $0.runs == 0 })
    }

    @Test func breakingOutOfTheLoopCancelsTheRunsStillGoingAndStartsNothingMore() async throws {
        let observers = (0..<8).map { _ in RunObserver() }
        let tasks = oneQuickThenSlow(observers)
        let handedOut = try await withWatchdog { () -> Int in
            var count = 0
            for _ in tasks.completions(concurrency: 3) {
                count += 1
                #expect(observers[0].waitUntilStarted())
                break
            }
            return count
        }
        #expect(handedOut == 1)
        expectRunsCancelledAndNothingMoreStarted(observers)
    }

    @Test func anErrorThrownInTheLoopCancelsTheRunsStillGoing() async throws {
        let observers = (0..<8).map { _ in RunObserver() }
        let tasks = oneQuickThenSlow(observers)
        let error = try await withWatchdog { () -> Error? in
            thrownError {
                for (offset, _) in tasks.completions(concurrency: 3) {
                    #expect(observers[0].waitUntilStarted())
                    throw TestError(offset)
                }
            }
        }
        #expect(error as? TestError == TestError(0))
        expectRunsCancelledAndNothingMoreStarted(observers)
    }

    @Test func lettingGoOfTheIteratorCancelsTheRunsStillGoing() async throws {
        let observers = (0..<8).map { _ in RunObserver() }
        let tasks = oneQuickThenSlow(observers)
        _ = try await withWatchdog { () -> Int? in
            var iterator = tasks.completions(concurrency: 3).makeIterator()
            let first = iterator.next()?.offset
            #expect(observers[0].waitUntilStarted())
            return first
        }
        expectRunsCancelledAndNothingMoreStarted(observers)
    }

    @Test func takingAPrefixLeavesTheLoopLikeABreak() async throws {
        let observers = (0..<8).map { _ in RunObserver() }
        let tasks = oneQuickThenSlow(observers)
        let first = try await withWatchdog { () -> [Int] in
            let prefix = tasks.completions(concurrency: 3).prefix(1)
            return prefix.compactMap { outcome in
                #expect(observers[0].waitUntilStarted())
                return try? outcome.result.get()
            }
        }
        #expect(first == [0])
        expectRunsCancelledAndNothingMoreStarted(observers)
    }

    @Test func eachIterationRunsTheTasksAgain() async throws {
        let runs = LockedValue(0)
        let tasks = (0..<5).map { i in
            ThrowableTask { () -> Int in
                runs.update { $0 += 1 }
                return i
            }
        }
        let completions = synchronously { tasks.completions() }
        let first = try await withWatchdog { completions.map(\.offset).sorted() }
        let second = try await withWatchdog { completions.map(\.offset).sorted() }
        #expect(first == Array(0..<5) && second == Array(0..<5))
        #expect(runs.value == 10)
    }

    /// Once the loop has handed out every outcome, the lanes have let go of the tasks: dropped
    /// right after the loop, they are freed at once, on the caller's thread, rather than by
    /// the last lane on a worker, alongside whatever the caller does next (which slowed a
    /// 100k-task wait started right after a loop of 100k by half).
    @Test func theLanesHaveLetGoOfTheTasksWhenTheLoopEnds() async throws {
        // A loop that did not wait failed in 2 to 22 rounds of 600. The 600 rounds took 29–104 s
        // under ThreadSanitizer beside the other suites and two busy loops (load 13–25), once
        // past a watchdog of 100 s: only a hang outlasts this one.
        let counts = try await withWatchdog(seconds: 60) {
            try roundsOfDroppedTasks(600) { _, tasks in
                var values = [Int](repeating: -1, count: tasks.count)
                for (offset, result) in tasks.completions(concurrency: 2) { values[offset] = try result.get() }
                return values
            }
        }
        #expect(counts?.wrong == 0)
        #expect(counts?.stillHeld == 0, "rounds where a lane still held the tasks after the loop")
    }

    @Test func noTasksYieldNothing() {
        #expect(Array([ThrowableTask<Int>]().completions()).isEmpty)
        #expect(Array([String: ThrowableTask<Int>]().completions()).isEmpty)
    }

    @Test func dictionariesYieldTheirKeys() async throws {
        // "slow" ends only once the loop has handed out "quick", so the order never depends on
        // time: on one core the loop has one lane, and how soon a second one starts beside a
        // blocked task depends on the load.
        let quickHandedOut = DispatchSemaphore(value: 0)
        let tasks = [
            "slow": ThrowableTask { () -> Int in
                quickHandedOut.wait()
                return 1
            },
            "quick": ThrowableTask { 2 },
        ]
        let outcomes = try await withWatchdog { () -> [(String, Int)] in
            var outcomes: [(String, Int)] = []
            for (key, result) in tasks.completions() {
                outcomes.append((key, try result.get()))
                if key == "quick" { quickHandedOut.signal() }
            }
            return outcomes
        }
        quickHandedOut.signal()  // lets "slow" end if the loop hung
        #expect(outcomes?.map(\.0) == ["quick", "slow"])
        #expect(outcomes?.map(\.1) == [2, 1])
    }

    @Test func aLoopInACancelledRunHandsOutTheTasksLeftAsCancelled() async throws {
        let observers = (0..<4).map { _ in RunObserver() }
        let handedOut = LockedValue<[(offset: Int, wasCancelled: Bool)]>([])
        let loopEnded = DispatchSemaphore(value: 0)
        // One at a time, so that task 0's outcome is in before task 1 starts, and so before the
        // cancel: at two, the cancel could come between task 0's return and its record.
        let outer = ThrowableTask { () -> Int in
            for (offset, result) in oneQuickThenSlow(observers).completions(concurrency: 1) {
                let wasCancelled = (result.failure as? CancellableTaskError) == .taskWasCancelled
                handedOut.update { $0.append((offset, wasCancelled)) }
            }
            loopEnded.signal()
            return 0
        }
        let loopEndedInTime = try await withWatchdog { () -> Bool in
            let future = outer.start()
            #expect(observers[0].waitUntilStarted())
            future.cancel()
            return loopEnded.wait(timeout: .now() + 2 * timingSlack) == .success
        }
        #expect(loopEndedInTime == true, "the loop did not wait for the 30 s tasks")
        let outcomes = handedOut.value
        #expect(outcomes.map(\.offset).sorted() == Array(0..<5), "every task once")
        #expect(outcomes.first.map { $0.offset == 0 && !$0.wasCancelled } == true)
        #expect(outcomes.dropFirst().allSatisfy { $0.wasCancelled })
        #expect(observers[0].waitUntilCancellationSeen())
        #expect(observers.dropFirst().allSatisfy { $0.runs == 0 })
    }

    @Test func aSerialQueuesTasksIteratedInsideItsSyncRunInPlace() async throws {
        let queue = DispatchQueue(label: "completions.serial")
        let offsets = try await withWatchdog {
            queue.sync {
                (0..<4).map { i in ThrowableTask(executionQueue: queue) { i } }.completions().map(\.offset)
            }
        }
        #expect(offsets == [0, 1, 2, 3])
    }

    /// "Cancelling tasks": a task cancelled for good while a worker runs it comes out of the loop at once
    /// as cancelled, and the loop ends without waiting for its body; the other tasks go on.
    @Test func aTaskCancelledWhileWorkersRunItComesOutAtOnce() async throws {
        let bodies = CancelledWhileRunning()
        let cancelled = ThrowableTask { bodies.body(0) }
        let quick = ThrowableTask { 1 }
        runLater(0) {
            _ = bodies.firstStartedElsewhere()
            cancelled.cancel()
        }
        let outcomes = try #require(
            await withWatchdog { () -> [Int: Bool] in
                bodies.waitHere()
                var wasCancelled: [Int: Bool] = [:]
                for (offset, result) in [cancelled, quick, cancelled].completions() {
                    wasCancelled[offset] = isCancellation(result.failure)
                }
                return wasCancelled
            })
        bodies.letTheOthersReturn()
        #expect(outcomes == [0: true, 1: false, 2: true])
    }
}
