import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct TimeoutTests {
    @Test func givesUpCloseToTheTimeoutAndCancelsTheRun() async throws {
        let observer = RunObserver()
        let task = ThrowableTask { () -> Int in
            observer.sleep(2) ? 1 : -1
        }
        let (result, seconds) = try #require(await withWatchdog { timed { Result { try task.await(timeout: 0.1) } } })
        #expect(isTimedOut(result.failure))
        #expect(seconds >= 0.09)
        #expect(seconds < 1 * timingSlack)
        #expect(try await withWatchdog { observer.waitUntilCancellationSeen() } == true, "the run is cancelled")
        #expect(!task.isCancelled, "the task itself is not")
    }

    @Test func aTaskThatTimedOutRunsAgainWhenAwaitedAgain() async throws {
        let runs = LockedValue(0)
        let slowOnce = ThrowableTask { () -> Int in
            let run = runs.update {
                $0 += 1; return $0
            }
            if run == 1 { sleep(seconds: 0.5) }
            return run
        }
        #expect(isTimedOut((try await withWatchdog { thrownError { try slowOnce.await(timeout: 0.05) } }) ?? nil))
        #expect(try await withWatchdog { try slowOnce.await(timeout: 5) } == 2)
    }

    @Test func aTaskThatFinishesInTimeReturnsItsValue() async throws {
        let value = try await withWatchdog { try ThrowableTask { 5 }.await(timeout: 2) }
        #expect(value == 5)
    }

    @Test func aTaskThatFailsInTimeThrowsItsOwnError() async throws {
        let thrown = try await withWatchdog {
            thrownError { try ThrowableTask<Int> { throw TestError(1) }.await(timeout: 2) }
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
