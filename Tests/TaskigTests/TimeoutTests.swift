import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct TimeoutTests {
    @Test func givesUpCloseToTheTimeoutAndCancelsTheRun() async throws {
        let observer = RunObserver()
        let task = ThrowableTask { () -> Int in
            observer.sleep(30) ? 1 : -1
        }
        // A run given up before it got a thread never starts; ThreadSanitizer in a full run can
        // take longer than 0.1 s to give it one, hence the slack.
        let (result, seconds) = try #require(
            await withWatchdog { timed { Result { try task.await(timeout: 0.1 * timingSlack) } } })
        #expect(isTimedOut(result.failure))
        // Beside two busy loops (load 13–25): 0.100–0.105 s debug, 0.107–0.109 s on one core, 1.00–1.02 s
        // ThreadSanitizer (whose timeout is 1 s); a timeout that never fired would wait 30 s.
        #expect(seconds >= 0.09)
        #expect(seconds < 1 * timingSlack)
        // A run can have had no thread before the wait gave up (under ThreadSanitizer, or on one
        // core beside the million-link chain): then it never starts, and there is nothing to
        // cancel. `runs` is read first: a run that never starts would otherwise be waited for
        // as long as the watchdog waits, and the check would report a hang.
        #expect(
            try await withWatchdog { observer.runs == 0 || observer.waitUntilCancellationSeen() } == true,
            "a run that started is cancelled")
        #expect(!task.isCancelled, "the task itself is not")
    }

    @Test func aTaskThatTimedOutRunsAgainWhenAwaitedAgain() async throws {
        let runs = LockedValue(0)
        let gaveUp = LockedValue(false)
        // Slow until the first wait has given up, whether or not its run got a thread before
        // then (a run given up before it started never starts).
        let slowAtFirst = ThrowableTask { () -> Int in
            let run = runs.update {
                $0 += 1; return $0
            }
            if !gaveUp.value { _ = RunObserver().sleep(30) }
            return run
        }
        #expect(isTimedOut((try await withWatchdog { thrownError { try slowAtFirst.await(timeout: 0.05) } }) ?? nil))
        gaveUp.set(true)
        let runsBefore = runs.value
        #expect(try await withWatchdog { try slowAtFirst.await() } == runsBefore + 1, "a new run, not cancelled")
    }

    // Their runs wait for a worker like any other: under ThreadSanitizer with busy loops beside
    // the stress suites, which keep the pool at its limit, 2 s was once too short for that.
    @Test func aTaskThatFinishesInTimeReturnsItsValue() async throws {
        let value = try await withWatchdog { try ThrowableTask { 5 }.await(timeout: 2 * timingSlack) }
        #expect(value == 5)
    }

    @Test func aTaskThatCannotFailGivesUpAtTheTimeoutAndOtherwiseReturnsItsValue() async throws {
        // The work ends only once the wait has given up (or past the watchdog): a wait that
        // waited for it would hang.
        let waitGaveUp = Gate()
        let slow = Task { () -> Int in
            waitGaveUp.wait(upTo: 30 * timingSlack)
            return 1
        }
        let (result, seconds) = try #require(
            await withWatchdog { timed { Result { try slow.await(timeout: 0.05) } } })
        waitGaveUp.open()
        #expect(isTimedOut(result.failure))
        // Beside two busy loops (load 13–25): 0.052–0.063 s debug, 0.057–0.058 s on one core and under
        // ThreadSanitizer.
        #expect(seconds < 0.4 * timingSlack, "it does not wait for the work")
        #expect(try await withWatchdog { try Task { 6 }.await(timeout: 2 * timingSlack) } == 6)
        #expect(isTimedOut((try await withWatchdog { thrownError { try Task { 7 }.await(timeout: 0) } }) ?? nil))
        let queue = DispatchQueue(label: "taskig.tests.task-timeout")
        let onQueue = try await withWatchdog {
            try queue.sync { try Task(executionQueue: queue) { 8 }.await(timeout: 1) }
        }
        #expect(onQueue == 8)
    }

    @Test func aTaskThatFailsInTimeThrowsItsOwnError() async throws {
        let thrown = try await withWatchdog {
            thrownError { try ThrowableTask<Int> { throw TestError(1) }.await(timeout: 2 * timingSlack) }
        }
        #expect(thrown as? TestError == TestError(1))
    }

    @Test(arguments: [0.0, -1.0])
    func zeroOrNegativeTimeoutsGiveUpAtOnceWithoutStarting(timeout: Double) throws {
        let started = LockedValue(false)
        let task = ThrowableTask { () -> Int in
            started.set(true)
            return 1
        }
        let (result, seconds) = timed { Result { try task.await(timeout: timeout) } }
        #expect(isTimedOut(result.failure))
        // Beside two busy loops (load 13–25): 10–95 µs debug and on one core, 23–62 µs ThreadSanitizer.
        #expect(seconds < 0.5 * timingSlack)
        sleep(seconds: 0.05)
        #expect(!started.value)
        #expect(!task.isCancelled, "only the wait gave up; the task still runs when awaited")
        #expect(try task.await() == 1)
    }

    @Test func timedOutIsMatchableAndReadable() throws {
        let error: Error = TaskigError.timedOut
        guard case TaskigError.timedOut = error else {
            Issue.record("timedOut must match with if case")
            return
        }
        #expect("\(error)".contains("timeout"))
    }
}
