import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct AwaitAllOfDifferentTypesTests {
    @Test func returnsEveryValueInArgumentOrderRunningInParallel() async throws {
        let number = ThrowableTask { () -> Int in
            sleep(seconds: 0.1); return 1
        }
        let text = ThrowableTask { () -> String in
            sleep(seconds: 0.1); return "two"
        }
        let list = ThrowableTask { () -> [Int] in
            sleep(seconds: 0.1); return [3]
        }
        let (values, seconds) = try #require(await withWatchdog { try timed { try awaitAll(number, text, list) } })
        #expect(values.0 == 1)
        #expect(values.1 == "two")
        #expect(values.2 == [3])
        #expect(seconds < 0.28 * timingSlack, "the three 0.1 s tasks run at the same time")
    }

    @Test func theFirstFailureFailsItAtOnceAndCancelsTheRest() async throws {
        let observer = RunObserver()
        let slow = ThrowableTask { () -> Int in
            observer.sleep(3); return 1
        }
        let failing = ThrowableTask { () -> String in
            // Only once the slow task runs, so that there is a running task to cancel.
            _ = observer.waitUntilStarted(within: 10)
            sleep(seconds: 0.05)
            throw TestError(7)
        }
        let (result, seconds) = try #require(
            await withWatchdog {
                timed { Result { try awaitAll(slow, failing) } }
            })
        #expect(throws: TestError(7)) { try result.get() }
        #expect(seconds < 1 * timingSlack)
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
