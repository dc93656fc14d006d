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
        let start: RunLaunch.Start = deadline == nil ? .waited : .waitedWithDeadline
        switch RunLaunch.launch(
            task, parent: CurrentRun.run, sharesCancellation: sharesCancellation, releasesOnTaskCancellation: true,
            start: start)
        {
        case .finished(let outcome):
            return outcome
        case .pending(let cell, let run):
            claimWorkOfFuture(task, start: start)
            if let outcome = BlockingWait.value(of: cell, until: deadline) { return outcome }
            // The waiter sees the timeout before the run hears of the cancellation it causes.
            if cell.complete(with: .failure(TaskigError.timedOut)) { run?.cancel() }
            return cell.completedValue!
        }
    }

    /// Runs the work of a future that has not started yet on this thread, when this waiter may
    /// run it (see ``RunPlacement/of(_:wait:)``): a waiter that runs the work itself needs no
    /// second thread, and the work sent elsewhere then finds it started. On a serial queue the
    /// waiter holds, the work could not start anywhere else before the wait ends.
    @inlinable
    static func claimWorkOfFuture<Work: ThrowableTaskType>(_ task: Work, start: RunLaunch.Start) {
        guard let future = task as? Future<Work.ResultType>, let workQueue = future.state.workQueue,
            RunPlacement.of(workQueue, wait: start.wait) == .inPlace
        else { return }
        future.state.startIfNeeded()
    }
}
