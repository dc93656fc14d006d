import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct TimeoutTests {
    @Test func givesUpCloseToTheTimeoutAndCancelsTheTask() async throws {
        let task = ThrowableTask { () -> Int in
            sleep(seconds: 2)
            return 1
        }
        let (result, seconds) = try #require(await withWatchdog { timed { Result { try task.await(timeout: 0.1) } } })
        #expect(isTimedOut(result.failure))
        #expect(seconds >= 0.09)
        #expect(seconds < 1 * timingSlack)
        #expect(task.isCancelled)
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
        #expect(task.isCancelled)
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
