import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct AwaitAllOfDifferentTypesTests {
    @Test func returnsEveryValueInArgumentOrderRunningInParallel() async throws {
        // The three wait for each other, up to 5 s: they meet once all three run at once,
        // however long a loaded pool takes to give their lanes threads. Run one after another,
        // each would wait out its time, and the watchdog would see the wait hang.
        let barrier = Barrier(count: 3)
        let number = ThrowableTask { () -> Int in
            barrier.arriveAndWait(upTo: 5 * timingSlack); return 1
        }
        let text = ThrowableTask { () -> String in
            barrier.arriveAndWait(upTo: 5 * timingSlack); return "two"
        }
        let list = ThrowableTask { () -> [Int] in
            barrier.arriveAndWait(upTo: 5 * timingSlack); return [3]
        }
        let values = try #require(await withWatchdog { try awaitAll(number, text, list) })
        #expect(values.0 == 1)
        #expect(values.1 == "two")
        #expect(values.2 == [3])
        #expect(barrier.waitsThatTimedOut == 0, "the three tasks run at the same time")
    }

    @Test func theFirstFailureFailsItAtOnceAndCancelsTheRest() async throws {
        let observer = RunObserver()
        // Past the watchdog unless the failure cancels it.
        let slow = ThrowableTask { () -> Int in
            observer.sleep(30 * timingSlack); return 1
        }
        let failed = Moment()
        let failing = ThrowableTask { () -> String in
            // Only once the slow task runs, so that there is a running task to cancel.
            _ = observer.waitUntilStarted()
            sleep(seconds: 0.05)
            failed.note()
            throw TestError(7)
        }
        let (result, seconds) = try #require(
            await withWatchdog { () -> (Result<(Int, String), Error>, Double?) in
                (Result { try awaitAll(slow, failing) }, failed.secondsSince)
            })
        #expect(throws: TestError(7)) { try result.get() }
        // From the failure (the tasks' start waits for the pool, which other tests' work can hold
        // for seconds under ThreadSanitizer), beside two busy loops (load 13–25): 0.3–0.4 ms debug,
        // 0.6–203 ms ThreadSanitizer. Waiting for the slow task would take its 30 s (× slack).
        #expect(try #require(seconds) < 1 * timingSlack)
        #expect(try await withWatchdog { observer.waitUntilCancellationSeen() } == true, "the slow run is cancelled")
        #expect(!slow.isCancelled, "the task itself is not")
    }

    @Test func calledFromASerialQueueItRunsThatQueuesTasksInPlace() async throws {
        // They were sent to the queue the caller held, and the wait never ended.
        let queue = DispatchQueue(label: "taskig.tests.await-all-of-different-types")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 1)
        let onQueue = ThrowableTask(executionQueue: queue) { () -> Int in
            DispatchQueue.getSpecific(key: key) ?? 0
        }
        let alsoOnQueue = ThrowableTask(executionQueue: queue) { () -> String in
            DispatchQueue.getSpecific(key: key) == 1 ? "on the queue" : "elsewhere"
        }
        let global = ThrowableTask { () -> Int in
            sleep(seconds: 0.05); return 3
        }
        let values = try await withWatchdog {
            try queue.sync { try awaitAll(onQueue, global, alsoOnQueue) }
        }
        let (first, second, third) = try #require(values)
        #expect(first == 1)
        #expect(second == 3)
        #expect(third == "on the queue")
    }

    @Test func worksWithFuturesAndSingleTasks() throws {
        let (only) = try awaitAll(ThrowableTask { 5 })
        #expect(only == 5)
        let (a, b) = try awaitAll(ThrowableTask { 1 }.start(), Promise<Int>().future.timeout(0.05).recover { _ in 2 })
        #expect(a == 1)
        #expect(b == 2)
    }
}
