import Dispatch
import Foundation

extension ThrowableTaskType {
    /// A task that runs this one but fails with ``TaskigError/timedOut`` when a run takes
    /// longer than `seconds`, and then cancels that run.
    ///
    /// Unlike ``await(timeout:file:line:)``, this is a cold task that composes: the limit applies to
    /// each run, wherever it is awaited, and the task it wraps stays usable, so
    /// `fetch(url).timeout(2).retry(3)` really makes up to three runs. A limit of zero or less
    /// times out at once, without starting the work.
    ///
    /// ```swift
    /// let page = try fetch(url).timeout(5).retry(3).await()
    /// ```
    public func timeout(_ seconds: TimeInterval) -> ThrowableTask<ResultType> {
        requireCorrectUse(!seconds.isNaN, "timeout(_:) was given NaN; pass a number of seconds")
        let limit = min(max(seconds, 0), Scheduling.longestDelay)
        return ThrowableTask(
            body: TaskBody(queue: executionQueue, work: .source(TimeoutWork(task: self, limit: limit))))
    }
}

/// The work of ``ThrowableTaskType/timeout(_:)``: one run of the task, as a child of the
/// timeout's run, given up at the limit.
final class TimeoutWork<Work: ThrowableTaskType>: SourceWork {
    /// A task's contract lets Taskig run it from any thread, which is all this does with it.
    nonisolated(unsafe) let task: Work
    let limit: TimeInterval

    init(task: Work, limit: TimeInterval) {
        self.task = task
        self.limit = limit
    }

    func start(reportingTo completion: @escaping @Sendable (Result<Work.ResultType, Error>) -> Void) {
        guard limit > 0 else {
            completion(.failure(TaskigError.timedOut))
            return
        }
        let deadline = DispatchTime.now() + limit
        switch RunLaunch.launch(task, parent: CurrentRun.run, start: .waitedUntil(deadline)) {
        case .finished(let outcome):
            completion(outcome)
        case .pending(let cell, let run):
            cell.whenComplete(completion)
            // A run its waiter ran in place has ended, and the launch timed it.
            guard !cell.isCompleted else { return }
            Scheduling.at(deadline) {
                // The waiters see the timeout before the run hears of the cancellation it causes.
                if cell.complete(with: .failure(TaskigError.timedOut)) { run?.cancel() }
            }
        }
    }
}
