import Dispatch
import Foundation

extension ThrowableTaskType {
    /// A task that runs this one but fails with ``TaskigError/timedOut`` when it takes
    /// longer than `seconds`, and then cancels it.
    ///
    /// Unlike ``await(timeout:)``, this is a cold task that composes: the limit applies to
    /// each run, wherever it is awaited. A limit of zero or less times out at once.
    ///
    /// ```swift
    /// let page = try fetch(url).timeout(5).retry(3).await()
    /// ```
    public func timeout(_ seconds: TimeInterval) -> ThrowableTask<ResultType> {
        requireCorrectUse(!seconds.isNaN, "timeout(_:) was given NaN; pass a number of seconds")
        let limit = min(max(seconds, 0), Scheduling.longestDelay)
        let token = (self as? CancellationTokenCarrier)?.cancellationToken ?? CancellationToken()
        // The task is only run and cancelled, which its contract allows from any thread.
        nonisolated(unsafe) let makeRun = { TaskRun.cell(for: self) }
        nonisolated(unsafe) let cancelTask = { (self as? CancellableTaskType)?.cancel() }
        let queue = executionQueue
        return ThrowableTask(executionQueue: queue, cancellationToken: token) { completion in
            let run = makeRun()
            run.whenComplete(completion)
            guard limit > 0 else {
                if run.complete(with: .failure(TaskigError.timedOut)) { cancelTask() }
                return
            }
            Scheduling.after(limit) {
                // The waiters must see the timeout before the cancellation it causes.
                if run.complete(with: .failure(TaskigError.timedOut)) {
                    cancelTask()
                }
            }
            Scheduling.startSoon(on: queue) { run.startIfNeeded() }
        }
    }
}
