import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct AwaitFirstTests {
    @Test func returnsAsSoonAsTheFirstFinishesAndCancelsTheRest() async throws {
        let observer = RunObserver()
        let slow = ThrowableTask { () -> String in
            observer.sleep(3)
            return "slow"
        }
        let fast = ThrowableTask { () -> String in
            // Only once the loser runs, so that there is a running loser to cancel.
            _ = observer.waitUntilStarted(within: 10)
            sleep(seconds: 0.01)
            return "fast"
        }
        let (value, seconds) = try #require(await withWatchdog { try timed { try [slow, fast].awaitFirst() } })
        #expect(value == "fast")
        #expect(seconds < 0.5 * timingSlack)
        #expect(try await withWatchdog { observer.waitUntilCancellationSeen() } == true, "the loser's run is cancelled")
        #expect(!slow.isCancelled, "the task itself is not")
    }

    @Test func theSameTasksCanRaceAgain() async throws {
        let observer = RunObserver()
        let slow = ThrowableTask { () -> String in
            observer.sleep(2)
            return "slow"
        }
        let fast = ThrowableTask { "fast" }
        let winners = try await withWatchdog { try (0..<3).map { _ in try [slow, fast].awaitFirst(concurrency: 2) } }
        #expect(winners == ["fast", "fast", "fast"])
        #expect(try await withWatchdog { try slow.timeout(0.05).recover { _ in "gave up" }.await() } == "gave up")
    }

    @Test func theFirstToFinishWinsEvenWhenItFailed() async throws {
        @Sendable func racers() -> [ThrowableTask<Int>] {
            let failing = ThrowableTask<Int> {
                sleep(seconds: 0.01)
                throw TestError(1)
            }
            let slow = ThrowableTask<Int> {
                sleep(seconds: 0.5)
                return 2
            }
            return [slow, failing]
        }
        let thrown = try await withWatchdog { thrownError { try racers().awaitFirst() } }
        #expect(thrown as? TestError == TestError(1))
        let result = try #require(await withWatchdog { racers().awaitFirstResult() })
        #expect(throws: TestError(1)) { try result.get() }
    }

    @Test func noTasksIsAnEmptySequenceError() throws {
        #expect(isEmptySequence(thrownError { try [ThrowableTask<Int>]().awaitFirst() }))
        guard case .failure(TaskigError.emptySequence) = [ThrowableTask<Int>]().awaitFirstResult() else {
            Issue.record("expected .failure(TaskigError.emptySequence)")
            return
        }
    }

    @Test func plainTasksDoNotThrow() async throws {
        let tasks = [
            Task { () -> Int in
                sleep(seconds: 1); return 1
            }, Task { 2 },
        ]
        #expect(try await withWatchdog { tasks.awaitFirst() } == 2)
    }
}
