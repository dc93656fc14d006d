import Dispatch
import Foundation

/// A blocking wait for one run of a task: ``ThrowableTaskType/await()``,
/// ``ThrowableTaskType/awaitResult()`` and ``ThrowableTaskType/await(timeout:)``.
@usableFromInline
enum RunWait {
    /// Runs `task` as a child of the current run and blocks until its outcome is known, or
    /// until `timeout` seconds have passed: then the run is cancelled (the task is not) and
    /// the outcome is ``TaskigError/timedOut``.
    ///
    /// - Parameter sharesCancellation: see ``RunLaunch/launch(_:parent:sharesCancellation:mayGiveUp:deadline:releasesOnTaskCancellation:start:)``.
    @inlinable
    static func outcome<Work: ThrowableTaskType>(
        of task: Work,
        sharesCancellation: Bool = true,
        timeout: TimeInterval? = nil
    ) -> Result<Work.ResultType, Error> {
        var deadline: DispatchTime?
        if let timeout {
            requireCorrectUse(!timeout.isNaN, "await(timeout:) was given NaN; pass a number of seconds")
            guard timeout > 0 else { return .failure(TaskigError.timedOut) }
            deadline = .now() + min(timeout, Scheduling.longestDelay)
        }
        // A future that has its outcome needs no run to be waited for.
        if let future = task as? Future<Work.ResultType>, let outcome = future.result { return outcome }
        switch RunLaunch.launch(
            task, parent: CurrentRun.run, sharesCancellation: sharesCancellation, deadline: deadline != nil,
            releasesOnTaskCancellation: true)
        {
        case .finished(let outcome):
            return outcome
        case .pending(let cell, let run):
            if deadline == nil { helpStart(of: task) }
            if let outcome = BlockingWait.value(of: cell, until: deadline) { return outcome }
            // The waiter sees the timeout before the run hears of the cancellation it causes.
            if cell.complete(with: .failure(TaskigError.timedOut)) { run?.cancel() }
            return cell.completedValue!
        }
    }

    /// On a worker thread, starts the work of a future that is still waiting for a thread,
    /// before waiting for it: when every worker waits, the future's work could otherwise wait
    /// in the queue forever.
    @inlinable
    static func helpStart<Work: ThrowableTaskType>(of task: Work) {
        guard WorkerThread.isCurrent, let future = task as? Future<Work.ResultType> else { return }
        future.state.startIfNeeded()
    }
}
