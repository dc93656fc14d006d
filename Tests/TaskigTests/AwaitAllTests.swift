import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct AwaitAllTests {
    @Test func valuesComeBackInInputOrder() async throws {
        let tasks = (0..<50).map { i in
            ThrowableTask { () -> Int in
                sleep(seconds: Double((i * 7) % 5) / 1000)
                return i * i
            }
        }
        #expect(try await withWatchdog { try tasks.awaitAll() } == (0..<50).map { $0 * $0 })
    }

    @Test func optionalValuesKeepTheirNils() async throws {
        let tasks: [ThrowableTask<String?>] = [ThrowableTask { "a" }, ThrowableTask { nil }, ThrowableTask { "c" }]
        let values = try await withWatchdog { try tasks.awaitAll() }
        #expect(values == ["a", nil, "c"])
        let plain: [Task<Int?>] = [Task { nil }, Task { 2 }]
        #expect(try await withWatchdog { plain.awaitAll() } == [nil, 2])
    }

    /// Nothing of Taskig's (a lane's thread, the timer that watches the lanes) keeps the tasks
    /// after the wait: the caller frees them when it drops them, at once. That holds too when
    /// a lane the batch started had not been taken up by a thread yet when the other lanes had
    /// settled every task, which four trivial tasks on two lanes often give.
    @Test func theCallerHoldsTheTasksAloneAfterTheWait() async throws {
        // A batch that kept the tasks for a lane not taken up yet failed in about a third of
        // the rounds. Under ThreadSanitizer beside the other suites and two busy loops, a round
        // took up to 170 ms (the 600 rounds of the completions loop's test took up to 104 s): only
        // a hang outlasts this watchdog.
        let counts = try await withWatchdog(seconds: 60) {
            try roundsOfDroppedTasks(200) { round, tasks in
                round.isMultiple(of: 2)
                    ? try tasks.awaitAll(concurrency: 2)
                    : try tasks.awaitAllResults(concurrency: 2).map { try $0.get() }
            }
        }
        #expect(counts?.wrong == 0)
        #expect(counts?.stillHeld == 0, "rounds where something of Taskig's still held the tasks after the wait")
    }

    @Test func noTasksGiveNoValues() throws {
        #expect(try [ThrowableTask<Int>]().awaitAll().isEmpty)
        #expect([Task<Int>]().awaitAll().isEmpty)
        #expect([ThrowableTask<Int>]().awaitAllResults().isEmpty)
    }

    @Test func concurrencyOneRunsStrictlyInOrderOneAfterTheOther() async throws {
        let probe = ConcurrencyProbe()
        let order = LockedValue<[Int]>([])
        let tasks = (0..<30).map { i in
            ThrowableTask { () -> Int in
                probe.measure {
                    order.update { $0.append(i) }
                    sleep(seconds: 0.001)
                }
                return i
            }
        }
        #expect(try await withWatchdog { try tasks.awaitAll(concurrency: 1) } == Array(0..<30))
        #expect(order.value == Array(0..<30))
        #expect(probe.peak == 1)
    }

    @Test func theFirstFailureIsThrownAtOnceNothingMoreStartsAndRunningTasksAreCancelled() async throws {
        let started = LockedValue<Set<Int>>([])
        let observer = RunObserver()
        // Past the watchdog unless the failure cancels it.
        let slow = ThrowableTask { () -> Int in
            started.update { _ = $0.insert(1) }
            return observer.sleep(30 * timingSlack) ? 1 : -1
        }
        let failed = Moment()
        let failing = ThrowableTask { () -> Int in
            started.update { _ = $0.insert(0) }
            // Fail only once the slow task runs, so that there is a running task to cancel.
            _ = observer.waitUntilStarted()
            sleep(seconds: 0.05)
            failed.note()
            throw TestError(0)
        }
        let never = (2..<12).map { i in
            ThrowableTask { () -> Int in
                started.update { _ = $0.insert(i) }
                return i
            }
        }
        let tasks = [failing, slow] + never
        let (result, seconds) = try #require(
            await withWatchdog { () -> (Result<[Int], Error>, Double?) in
                (Result { try tasks.awaitAll(concurrency: 2) }, failed.secondsSince)
            })
        #expect(throws: TestError(0)) { try result.get() }
        // From the failure (the tasks' start waits for the pool, which other tests' work can hold
        // for seconds under ThreadSanitizer), beside two busy loops (load 13–25): 0.2–1.8 ms debug,
        // 0.3–31 ms ThreadSanitizer. Waiting for the slow task would take its 30 s (× slack).
        #expect(try #require(seconds) < 1 * timingSlack)
        #expect(try await withWatchdog { observer.waitUntilCancellationSeen() } == true, "the slow run is cancelled")
        #expect(!slow.isCancelled, "the task itself is not")
        sleep(seconds: 0.1)
        #expect(started.value == [0, 1])
    }

    @Test func tasksOfAFailedAwaitAllCanBeAwaitedAgain() async throws {
        // The original Taskig's own suite reuses tasks this way (testThatConcurrencyParameterWorks).
        // The first run of `flaky` fails while the others are still running, so the failed
        // wait gives up on their runs; the tasks themselves must stay usable.
        let attempt = LockedValue(0)
        let flaky = ThrowableTask { () -> Int in
            if attempt.update({
                $0 += 1; return $0
            }) == 1 {
                sleep(seconds: 0.03)
                throw TestError(1)
            }
            return 0
        }
        let slow = (1...3).map { i in
            ThrowableTask { () -> Int in
                sleep(seconds: 0.15)
                return i
            }
        }
        let tasks = [flaky] + slow
        #expect(throws: TestError(1)) { try tasks.awaitAll(concurrency: 4) }
        #expect(try await withWatchdog { try tasks.awaitAll(concurrency: 4) } == [0, 1, 2, 3])
        #expect(try await withWatchdog { try tasks.awaitAll(concurrency: 1) } == [0, 1, 2, 3])
    }

    @Test func allResultsLetsEveryTaskSettle() async throws {
        let tasks = (0..<6).map { i in
            ThrowableTask { () -> Int in
                if i % 2 == 1 { throw TestError(i) }
                return i
            }
        }
        let results = try #require(await withWatchdog { tasks.awaitAllResults(concurrency: 3) })
        #expect(results.count == 6)
        for (i, result) in results.enumerated() {
            if i % 2 == 1 {
                #expect(throws: TestError(i)) { try result.get() }
            } else {
                #expect(try result.get() == i)
            }
        }
    }

    @Test func worksOnAnySequence() throws {
        let lazyTasks = (0..<5).lazy.map { i in Task { i + 1 } }
        #expect(lazyTasks.awaitAll() == [1, 2, 3, 4, 5])
    }

    @Test func largeCollectionsOfTrivialTasks() async throws {
        let tasks = (0..<100_000).map { i in Task { i } }
        let values = try await withWatchdog(seconds: 30) { tasks.awaitAll() }
        #expect(values == Array(0..<100_000))
    }

    /// Lanes claim quick tasks several at a time. A lane that blocks in one of them leaves the
    /// ones it claimed after it to the other lanes: here the blocking task waits for every
    /// task after it.
    @Test func aTaskThatBlocksAfterQuickOnesDoesNotHoldBackTheTasksAfterIt() async throws {
        let followersRan = DispatchSemaphore(value: 0)
        let followers = 15
        let quick = (0..<5_000).map { i in ThrowableTask { i } }
        let blocking = ThrowableTask { () -> Int in
            for _ in 0..<followers {
                guard followersRan.wait(timeout: .now() + 5 * timingSlack) == .success else { return -1 }
            }
            return 5_000
        }
        let after = (0..<followers).map { i in
            ThrowableTask { () -> Int in
                followersRan.signal()
                return 5_001 + i
            }
        }
        let values = try await withWatchdog(seconds: 60) { try (quick + [blocking] + after).awaitAll(concurrency: 4) }
        #expect(values == Array(0...5_000 + followers))
    }

    @Test func lanesOnACustomConcurrentQueue() async throws {
        let queue = DispatchQueue(label: "taskig.test.lanes", attributes: .concurrent)
        let tasks = (0..<10).map { i in Task { i } }
        #expect(try await withWatchdog { tasks.awaitAll(queue, concurrency: 3) } == Array(0..<10))
    }

    /// A failed wait frees its result array at once: the values written so far are destroyed,
    /// once each, and values that settle later (callbacks still pending) are dropped, not
    /// written into the freed array.
    @Test func aFailedWaitDestroysTheValuesItHadAndDropsTheLateOnes() async throws {
        final class Counted: Sendable {
            let alive: LockedValue<Int>
            init(_ alive: LockedValue<Int>) {
                self.alive = alive
                alive.update { $0 += 1 }
            }
            deinit { alive.update { $0 -= 1 } }
        }
        struct Failed: Error {}
        let alive = LockedValue(0)
        let early = (0..<50).map { _ in ThrowableTask { Counted(alive) } }
        let late = (0..<50).map { _ in
            ThrowableTask<Counted> { done in
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { done(.success(Counted(alive))) }
            }
        }
        let failing = ThrowableTask<Counted> { done in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { done(.failure(Failed())) }
        }
        let outcome = try await withWatchdog { Result { try (early + late + [failing]).awaitAll(concurrency: 200) } }
        #expect(throws: Failed.self) { try outcome?.get() }
        // The late callbacks come 50 ms in; give them time to arrive and be dropped.
        let settled = try await withWatchdog { () -> Int in
            let giveUp = DispatchTime.now() + 5 * timingSlack
            while alive.value != 0 && DispatchTime.now() < giveUp { usleep(5_000) }
            usleep(100_000)
            return alive.value
        }
        #expect(settled == 0)
    }

    /// Callback tasks whose callbacks come later, at a small concurrency: a lane that claimed a
    /// run of quick tasks and then left one pending, with no lane free to go on with, still runs
    /// the rest of its run once that one settles (they were lost, and the wait hung, in about
    /// half the rounds).
    @Test(arguments: [1, 2, 3])
    func callbackTasksAtASmallConcurrencyAllSettle(concurrency: Int) async throws {
        let values = try await withWatchdog(seconds: 20) { () -> [[Int]] in
            try (0..<20).map { _ in
                try (0..<50).map { i in
                    ThrowableTask<Int> { done in
                        if i % 3 == 0 { done(.success(i)) } else { DispatchQueue.global().async { done(.success(i)) } }
                    }
                }.awaitAll(concurrency: concurrency)
            }
        }
        #expect(values?.allSatisfy { $0 == Array(0..<50) } == true)
    }

    /// "Cancelling tasks": workers run the bodies and the caller runs none, so a task cancelled for good
    /// while it runs releases the caller at once, with the cancellation; the lanes finish the
    /// bodies, whose outcomes are dropped.
    @Test func aTaskCancelledWhileWorkersRunItReleasesTheCallerAtOnce() async throws {
        let bodies = CancelledWhileRunning()
        let task = ThrowableTask { bodies.body(0) }
        runLater(0) {
            _ = bodies.firstStartedElsewhere()
            task.cancel()
        }
        let result = try #require(
            await withWatchdog { () -> Result<[Int], Error> in
                bodies.waitHere()
                return Result { try [task, task].awaitAll() }
            })
        bodies.letTheOthersReturn()
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result.get() }
    }
}
