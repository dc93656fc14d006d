import Foundation
import Testing

@testable import Taskig

/// Documented programmer errors stop the process with a message that says what was wrong.
@Suite struct ProgrammerErrorTests {
    @Test func concurrencyBelowOneIsReported() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = synchronously { [Task { 1 }].awaitAll(concurrency: 0) }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("concurrency is how many tasks may run at once and must be at least 1"))
    }

    @Test func throwingCollectionsReportConcurrencyBelowOneToo() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = synchronously { try? [ThrowableTask { 1 }].awaitFirst(concurrency: -3) }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("awaitFirst(concurrency: -3)"))
    }

    @Test func completionsReportConcurrencyBelowOneLikeTheOtherWaits() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = synchronously { [ThrowableTask { 1 }].completions(concurrency: 0) }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("completions(concurrency: 0): concurrency is how many tasks may run at once"))
    }

    @Test func awaitFirstOnNoPlainTasksIsReported() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = synchronously { [Task<Int>]().awaitFirst() }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("empty collection of tasks"))
    }

    @Test func aNaNTimeoutIsReported() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = synchronously { try? ThrowableTask { 1 }.await(timeout: .nan) }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("await(timeout:) was given NaN"))
    }

    @Test func unCancellingIsReported() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var task = ThrowableTask { 1 }
            task.cancel()
            task.isCancelled = false
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("cannot be un-cancelled"))
    }
}

@Suite struct TimeProgrammerErrorTests {
    @Test func retryNeedsAtLeastOneAttempt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ThrowableTask { 1 }.retry(0)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("retry(0): attempts is the total number of runs and must be at least 1"))
    }

    @Test func aNaNDelayIsReported() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ThrowableTask.delay(.nan)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("delay(_:) was given NaN"))
    }
}
