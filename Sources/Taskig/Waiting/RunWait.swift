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
            helpStart(of: task, hasDeadline: deadline != nil)
            if let outcome = BlockingWait.value(of: cell, until: deadline) { return outcome }
            // The waiter sees the timeout before the run hears of the cancellation it causes.
            if cell.complete(with: .failure(TaskigError.timedOut)) { run?.cancel() }
            return cell.completedValue!
        }
    }

    /// Starts the work of a future that has not started yet on this thread, before waiting for
    /// it, where the wait could otherwise keep it from ever starting: on the serial queue
    /// the work was sent to, which the wait holds (a deadline cannot help there either); and,
    /// for work on a global queue, on a worker thread without a deadline, since when every
    /// worker waits the work could wait in the pool's queue for good. Work sent to a serial
    /// queue never starts anywhere else, which would break that queue's one-at-a-time promise.
    @inlinable
    static func helpStart<Work: ThrowableTaskType>(of task: Work, hasDeadline: Bool) {
        guard let future = task as? Future<Work.ResultType> else { return }
        if let (queue, kind) = future.state.workQueue {
            if QueueAffinity.isCurrent(queue, kind: kind) { future.state.startIfNeeded() }
            return
        }
        guard WorkerThread.isCurrent, !hasDeadline else { return }
        future.state.startIfNeeded()
    }
}
