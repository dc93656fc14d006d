import Dispatch
import Foundation
import Testing

@testable import Taskig

/// Cancellation, completion and timeouts racing each other, over and over: one outcome wins,
/// every waiter of a run sees that one, and every handler runs exactly once.
///
/// Their watchdogs scale with ThreadSanitizer's slack: there, beside the other suites and with
/// four busy loops on the two cores, each took over a minute, against 3–5 s alone.
@Suite struct CancellationStressTests {
    @Test func resolveCancelAndWaitersRacingAgreeOnOneOutcome() async throws {
        let disagreements = try await withWatchdog(seconds: 60) { () -> Int in
            var disagreements = 0
            for iteration in 0..<100_000 {
                let promise = Promise<Int>()
                let decided = LockedValue<[Bool]>([false, false])
                let seen = LockedValue<[Result<Int, Error>?]>([nil, nil])
                DispatchQueue.concurrentPerform(iterations: 4) { role in
                    switch role {
                    case 0: decided.update { $0[0] = promise.resolve(iteration) }
                    case 1: decided.update { $0[1] = promise.cancel() }
                    case 2: seen.update { $0[0] = promise.future.awaitResult() }
                    default: seen.update { $0[1] = Result { try promise.future.await(timeout: 0.000_001) } }
                    }
                }
                let winners = decided.value.filter { $0 }.count
                let outcome = promise.future.result
                let waited = seen.value[0]
                let timed = seen.value[1]
                let agrees: (Result<Int, Error>?) -> Bool = { other in
                    switch (outcome, other) {
                    case (.success(let a)?, .success(let b)?): return a == b
                    case (
                        .failure(CancellableTaskError.taskWasCancelled)?,
                        .failure(CancellableTaskError.taskWasCancelled)?
                    ):
                        return true
                    default: return false
                    }
                }
                if winners != 1 || !agrees(waited) || !(agrees(timed) || isTimedOut(timed?.failure)) {
                    disagreements += 1
                }
            }
            return disagreements
        }
        #expect(disagreements == 0)
    }

    @Test func aRunsCompletionItsCancellationAndATimeoutLeaveOneOutcome() async throws {
        let disagreements = try await withWatchdog(seconds: 60) { () -> Int in
            var disagreements = 0
            for iteration in 0..<10_000 {
                let finish = LockedValue<(@Sendable (Result<Int, Error>) -> Void)?>(nil)
                let ready = DispatchSemaphore(value: 0)
                let task = ThrowableTask<Int> { done in
                    finish.set(done)
                    ready.signal()
                }
                let future = task.start()
                ready.wait()
                let seen = LockedValue<[Result<Int, Error>?]>([nil, nil])
                DispatchQueue.concurrentPerform(iterations: 4) { role in
                    switch role {
                    case 0: finish.value?(.success(iteration))
                    case 1: future.cancel()
                    case 2: seen.update { $0[0] = future.awaitResult() }
                    default: seen.update { $0[1] = future.awaitResult() }
                    }
                }
                let outcomes = seen.value.map { result -> String in
                    switch result {
                    case .success(let value)?: return "value \(value)"
                    case .failure(CancellableTaskError.taskWasCancelled)?: return "cancelled"
                    default: return "other"
                    }
                }
                let first = future.result.map { result -> String in
                    if case .success(let value) = result { return "value \(value)" }
                    return "cancelled"
                }
                if outcomes[0] != outcomes[1] || outcomes[0] != first || outcomes[0] == "other" { disagreements += 1 }
            }
            return disagreements
        }
        #expect(disagreements == 0)
    }

    @Test func handlersRegisteredWhileARunIsCancelledRunExactlyOnce() async throws {
        let wrongCounts = try await withWatchdog(seconds: 60) { () -> Int in
            var wrongCounts = 0
            for _ in 0..<100_000 {
                let parent = Run(parent: nil, cancellable: true)
                let child = Run(parent: parent, cancellable: false)
                let calls = LockedValue(0)
                DispatchQueue.concurrentPerform(iterations: 3) { role in
                    switch role {
                    case 0: parent.onCancel { calls.update { $0 += 1 } }
                    case 1: child.onCancel { calls.update { $0 += 1 } }
                    default: parent.cancel()
                    }
                }
                if calls.value != 2 { wrongCounts += 1 }
                child.close()
                parent.close()
            }
            return wrongCounts
        }
        #expect(wrongCounts == 0)
    }

    @Test func aBodyThatSeesItsRunCancelledAndReturnsAnywayStillReportsTheCancellation() async throws {
        // The body returns the moment it sees the cancellation, racing the canceller's own
        // report of it. The task was cancelled before its body could end, so whichever
        // completes the run first, every waiter must get the cancellation, never the value.
        let wrongOutcomes = try #require(
            await withWatchdog(seconds: 60) { () -> [String] in
                var wrongOutcomes: [String] = []
                for round in 0..<2_000 {
                    let started = DispatchSemaphore(value: 0)
                    let task = ThrowableTask { () -> Int in
                        started.signal()
                        // Yields rather than spins, so that on one core the canceller gets it.
                        while !ThrowableTask.isCurrentTaskCancelled { sched_yield() }
                        return -1
                    }
                    let outcome: Result<Int, Error>
                    if round.isMultiple(of: 2) {
                        let future = task.start()
                        started.wait()
                        task.cancel()
                        outcome = future.awaitResult()
                    } else {
                        let waited = LockedValue<Result<Int, Error>?>(nil)
                        let done = DispatchSemaphore(value: 0)
                        DispatchQueue.global().async {
                            waited.set(task.awaitResult())
                            done.signal()
                        }
                        started.wait()
                        task.cancel()
                        done.wait()
                        outcome = waited.value!
                    }
                    if !isCancellation(outcome.failure) { wrongOutcomes.append("round \(round): \(outcome)") }
                }
                return wrongOutcomes
            })
        #expect(wrongOutcomes.isEmpty, "\(wrongOutcomes.count) of 2,000 rounds, first: \(wrongOutcomes.prefix(3))")
    }
}
