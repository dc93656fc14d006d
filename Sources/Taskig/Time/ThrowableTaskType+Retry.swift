import Dispatch
import Foundation

extension ThrowableTaskType {
    /// A task that runs this one up to `attempts` times in all, until one run succeeds.
    ///
    /// Each attempt is a new run of this task, a child of the retry's run. Between runs it
    /// waits without holding a thread: `delay` seconds before the second run, then twice as
    /// long before each further one (exponential backoff: `delay`, `2 × delay`, `4 × delay`,
    /// …). It fails with the last run's error. It stops at once, without another run, when its
    /// run is cancelled or a run fails with ``CancellableTaskError/taskWasCancelled``.
    ///
    /// `attempts` must be at least 1; a `delay` below zero counts as zero.
    ///
    /// ```swift
    /// let data = try download(url).retry(3, delay: 0.2).await()   // waits 0.2 s, then 0.4 s
    /// ```
    public func retry(_ attempts: Int, delay: TimeInterval = 0) -> ThrowableTask<ResultType> {
        retry(attempts, delay: delay, if: { _ in true })
    }

    /// A task that runs this one up to `attempts` times in all, until one run succeeds or
    /// `shouldRetry` turns down a run's error.
    ///
    /// Runs, backoff and cancellation are those of ``retry(_:delay:)``. After each failed run
    /// that is not the last, `shouldRetry` gets its error (never a cancellation, which ends
    /// the retry anyway) and says whether to run again; when it says no, the retry fails with
    /// that error at once. Retry what a new run can fix, such as a timeout, and not what it
    /// cannot, such as a missing page.
    ///
    /// ```swift
    /// let data = try download(url).timeout(2).retry(3, delay: 0.2, if: { error in
    ///     if case TaskigError.timedOut = error { return true }
    ///     return (error as? URLError)?.code == .networkConnectionLost
    /// }).await()
    /// ```
    public func retry(
        _ attempts: Int,
        delay: TimeInterval = 0,
        if shouldRetry: @escaping @Sendable (Error) -> Bool
    ) -> ThrowableTask<ResultType> {
        requireCorrectUse(
            attempts >= 1, "retry(\(attempts)): attempts is the total number of runs and must be at least 1")
        requireCorrectUse(!delay.isNaN, "retry(_:delay:) was given a NaN delay; pass a number of seconds")
        // A task's contract lets Taskig run it from any thread, which is all the closure does.
        nonisolated(unsafe) let launchRun = { (parent: Run?, start: RunLaunch.Start) in
            RunLaunch.launch(self, parent: parent, start: start)
        }
        let work = RetryWork<ResultType>(
            attempts: attempts, firstDelay: min(max(delay, 0), Scheduling.longestDelay), shouldRetry: shouldRetry,
            launch: { parent, start in launchRun(parent, start) })
        return ThrowableTask(body: TaskBody(queue: executionQueue, work: .source(work)))
    }
}

/// The work of ``ThrowableTaskType/retry(_:delay:)``: runs of the task, each started after the
/// previous one failed, never nested in it.
final class RetryWork<Value>: SourceWork {
    let attempts: Int
    let firstDelay: TimeInterval
    /// Whether a run's error is worth another run.
    let shouldRetry: @Sendable (Error) -> Bool
    /// Starts one run of the task, as a child of the given run.
    let launch: @Sendable (Run?, RunLaunch.Start) -> RunLaunch.Launched<Value>

    init(
        attempts: Int, firstDelay: TimeInterval, shouldRetry: @escaping @Sendable (Error) -> Bool,
        launch: @escaping @Sendable (Run?, RunLaunch.Start) -> RunLaunch.Launched<Value>
    ) {
        self.attempts = attempts
        self.firstDelay = firstDelay
        self.shouldRetry = shouldRetry
        self.launch = launch
    }

    func start(reportingTo completion: @escaping @Sendable (Result<Value, Error>) -> Void) {
        attempt(1, parent: CurrentRun.run, start: .waited, completion: completion)
    }

    func attempt(
        _ attempt: Int,
        parent: Run?,
        start: RunLaunch.Start,
        completion: @escaping @Sendable (Result<Value, Error>) -> Void
    ) {
        // A cancelled parent needs no check here: the launch below then starts nothing, and
        // its outcome is reported as the cancellation.
        let next: @Sendable (Result<Value, Error>) -> Void = { outcome in
            let cancelled = parent?.isCancelled == true
            guard case .failure(let error) = outcome, attempt < self.attempts, !(error is CancellableTaskError),
                !cancelled, self.shouldRetry(error)
            else {
                completion(cancelled ? .failure(CancellableTaskError.taskWasCancelled) : outcome)
                return
            }
            let wait = min(self.firstDelay * pow(2, Double(attempt - 1)), Scheduling.longestDelay)
            self.attempt(attempt + 1, parent: parent, start: .unwaited(after: wait), completion: completion)
        }
        switch launch(parent, start) {
        case .finished(let outcome): next(outcome)
        case .pending(let cell, _): cell.whenComplete(next)
        }
    }
}
