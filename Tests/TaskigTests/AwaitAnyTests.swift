import Foundation
import Testing

@testable import Taskig

@Suite struct AwaitAnyTests {
    @Test func theFirstSuccessWinsOverEarlierFailures() async throws {
        let observer = RunObserver()
        let winnerEnded = Moment()
        let tasks = [
            ThrowableTask<Int> { throw TestError(0) },
            ThrowableTask<Int> {
                // Only once the loser runs, so that there is a running loser to cancel.
                _ = observer.waitUntilStarted()
                sleep(seconds: 0.05)
                winnerEnded.note()
                return 1
            },
            // Past the watchdog unless the race cancels it.
            ThrowableTask<Int> {
                observer.sleep(30 * timingSlack)
                return 2
            },
        ]
        let (value, seconds) = try #require(
            await withWatchdog { () -> (Int, Double?) in (try tasks.awaitAny(), winnerEnded.secondsSince) })
        #expect(value == 1)
        // From the winner's end (its start waits for the pool, which other tests' work held for
        // 13.7 s once under ThreadSanitizer), beside two busy loops (load 13–25): 0.1–1.8 ms debug,
        // 5–51 ms ThreadSanitizer. Waiting for the loser would take its 30 s (× slack).
        #expect(try #require(seconds) < 1 * timingSlack)
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
