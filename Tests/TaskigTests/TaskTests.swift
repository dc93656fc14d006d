import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct TaskTests {
    @Test func awaitReturnsTheValue() throws {
        #expect(Task { 6 * 7 }.await() == 42)
    }

    @Test func callbackTasksWrapAsynchronousWork() async throws {
        let value = try await withWatchdog {
            Task<String> { done in
                runLater(0.05) { done("ready") }
            }.await()
        }
        #expect(value == "ready")
    }

    @Test func tasksAreColdAndRunAgainOnEachAwait() throws {
        let runs = LockedValue(0)
        let task = Task {
            runs.update {
                $0 += 1; return $0
            }
        }
        #expect(runs.value == 0)
        #expect(task.await() == 1)
        #expect(task.await() == 2)
    }

    @Test func onlyTheFirstCompletionCounts() throws {
        let task = Task<Int> { done in
            done(1)
            done(2)
        }
        #expect(task.await() == 1)
    }

    @Test func asyncDeliversTheValueWithoutBlocking() throws {
        let received = DispatchSemaphore(value: 0)
        let value = LockedValue(0)
        Task { 5 }.async { result in
            value.set(result)
            received.signal()
        }
        #expect(received.wait(timeout: .now() + 10 * timingSlack) == .success)
        #expect(value.value == 5)
    }

    @Test func asyncWaitsForItsDelay() throws {
        let received = DispatchSemaphore(value: 0)
        let start = DispatchTime.now()
        Task { 1 }.async(delayBy: 0.2) { _ in received.signal() }
        #expect(received.wait(timeout: .now() + 10 * timingSlack) == .success)
        #expect(secondsSince(start) >= 0.19)
    }

    @Test func aNegativeDelayStartsAtOnce() throws {
        let received = DispatchSemaphore(value: 0)
        let start = DispatchTime.now()
        // A delay taken for its size would be a minute, past both bounds.
        Task { 1 }.async(delayBy: -60) { _ in received.signal() }
        #expect(received.wait(timeout: .now() + 10 * timingSlack) == .success)
        // Beside two busy loops (load 13–25): 3–6 ms debug, 0.3–5 ms ThreadSanitizer.
        #expect(secondsSince(start) < 1 * timingSlack)
    }

    @Test func staticAsyncRunsOnTheGivenQueueAfterTheDelay() throws {
        let queue = DispatchQueue(label: "taskig.test.static-async")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 11)
        let ran = DispatchSemaphore(value: 0)
        let seen = LockedValue<Int?>(nil)
        let start = DispatchTime.now()
        Task.async(executionQueue: queue, delayBy: 0.1) {
            seen.set(DispatchQueue.getSpecific(key: key))
            ran.signal()
        }
        #expect(ran.wait(timeout: .now() + 10 * timingSlack) == .success)
        #expect(seen.value == 11)
        #expect(secondsSince(start) >= 0.09)
    }

    @Test func staticAwaitRunsTheActionOnTheGivenQueue() async throws {
        let queue = DispatchQueue(label: "taskig.test.static-await")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "mine")
        let seen = try await withWatchdog {
            Task<String?>.await(executionQueue: queue) { DispatchQueue.getSpecific(key: key) }
        }
        #expect(seen == "mine")
        let mainKey = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: mainKey, value: "main")
        let onMain = try await withWatchdog {
            Task<String?>.await(executionQueue: .main) { DispatchQueue.getSpecific(key: mainKey) }
        }
        #expect(onMain == "main")
    }

    @Test func qualityOfServiceShortcutsAreTheGlobalQueues() throws {
        #expect(DispatchQueue.userInteractive.label == DispatchQueue.global(qos: .userInteractive).label)
        #expect(DispatchQueue.userInitiated.label == DispatchQueue.global(qos: .userInitiated).label)
        #expect(DispatchQueue.utility.label == DispatchQueue.global(qos: .utility).label)
        #expect(DispatchQueue.background.label == DispatchQueue.global(qos: .background).label)
        #expect(Task(executionQueue: .background) { 3 }.await() == 3)
    }

    @Test func throwableTaskOfATaskNeverFails() throws {
        #expect(try Task { "x" }.throwableTask.await() == "x")
    }
}
