import Foundation
import Testing

@testable import Taskig

@Suite struct AwaitAnyTests {
    @Test func theFirstSuccessWinsOverEarlierFailures() async throws {
        let observer = RunObserver()
        let tasks = [
            ThrowableTask<Int> { throw TestError(0) },
            ThrowableTask<Int> {
                // Only once the loser runs, so that there is a running loser to cancel.
                _ = observer.waitUntilStarted(within: 10)
                sleep(seconds: 0.05)
                return 1
            },
            ThrowableTask<Int> {
                observer.sleep(2)
                return 2
            },
        ]
        let (value, seconds) = try #require(await withWatchdog { try timed { try tasks.awaitAny() } })
        #expect(value == 1)
        #expect(seconds < 1 * timingSlack)
        #expect(try await withWatchdog { observer.waitUntilCancellationSeen() } == true, "the loser's run is cancelled")
        #expect(!tasks[2].isCancelled, "the task itself is not")
    }

    @Test func failsOnlyWhenAllFailWithEveryErrorInOrder() throws {
        let tasks = (0..<4).map { i in
            ThrowableTask<Int> {
                sleep(seconds: Double(4 - i) / 100)
                throw TestError(i)
            }
        }
        do {
            _ = try tasks.awaitAny()
            Issue.record("expected a failure")
        } catch TaskigError.allFailed(let errors) {
            #expect(errors.compactMap { ($0 as? TestError)?.id } == [0, 1, 2, 3])
        }
    }

    @Test func noTasksIsAnEmptySequenceError() throws {
        #expect(isEmptySequence(thrownError { try [ThrowableTask<Int>]().awaitAny() }))
    }
}
