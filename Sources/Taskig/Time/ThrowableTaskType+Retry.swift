import Dispatch
import Foundation

extension ThrowableTaskType {
    /// A task that runs this one up to `attempts` times in all, until one run succeeds.
    ///
    /// Between runs it waits without holding a thread: `delay` seconds before the second
    /// run, then twice as long before each further one (exponential backoff: `delay`,
    /// `2 × delay`, `4 × delay`, …). It fails with the last run's error. It stops at once,
    /// without another run, when it is cancelled or a run fails with
    /// ``CancellableTaskError/taskWasCancelled``.
    ///
    /// `attempts` must be at least 1; a `delay` below zero counts as zero.
    ///
    /// ```swift
    /// let data = try download(url).retry(3, delay: 0.2).await()   // waits 0.2 s, then 0.4 s
    /// ```
    public func retry(_ attempts: Int, delay: TimeInterval = 0) -> ThrowableTask<ResultType> {
        requireCorrectUse(
            attempts >= 1, "retry(\(attempts)): attempts is the total number of runs and must be at least 1")
        requireCorrectUse(!delay.isNaN, "retry(_:delay:) was given a NaN delay; pass a number of seconds")
        let firstDelay = min(max(delay, 0), Scheduling.longestDelay)
        let token = (self as? CancellationTokenCarrier)?.cancellationToken ?? CancellationToken()
        // The task is only run, which its contract allows from any thread.
        nonisolated(unsafe) let makeTaskRun = { TaskRun.cell(for: self) }
        let makeRun: @Sendable () -> CompletionCell<Result<ResultType, Error>> = { makeTaskRun() }
        let queue = executionQueue
        return ThrowableTask(executionQueue: queue, cancellationToken: token) { completion in
            RetryLoop(
                makeRun: makeRun, queue: queue, attempts: attempts, firstDelay: firstDelay, token: token,
                completion: completion
            )
            .run(attempt: 1)
        }
    }
}

/// The runs of one ``ThrowableTaskType/retry(_:delay:)``, each started after the previous one
/// failed, never nested in it.
struct RetryLoop<Value>: Sendable {
    let makeRun: @Sendable () -> CompletionCell<Result<Value, Error>>
    let queue: DispatchQueue
    let attempts: Int
    let firstDelay: TimeInterval
    let token: CancellationToken
    let completion: @Sendable (Result<Value, Error>) -> Void

    func run(attempt: Int) {
        let cell = makeRun()
        cell.whenComplete { result in
            guard case .failure(let error) = result else {
                completion(result)
                return
            }
            // Once the retrying task is cancelled, that is its outcome, whatever the last run did.
            guard !token.isCancelled else {
                completion(.failure(CancellableTaskError.taskWasCancelled))
                return
            }
            guard attempt < attempts, !(error is CancellableTaskError) else {
                completion(result)
                return
            }
            let wait = min(firstDelay * pow(2, Double(attempt - 1)), Scheduling.longestDelay)
            Scheduling.after(wait) { run(attempt: attempt + 1) }
        }
        Scheduling.startSoon(on: queue) { cell.startIfNeeded() }
    }
}
