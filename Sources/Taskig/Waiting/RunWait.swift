import Dispatch
import Foundation

/// A blocking wait for one run of a task: ``ThrowableTaskType/await(file:line:)``,
/// ``ThrowableTaskType/awaitResult(file:line:)`` and ``ThrowableTaskType/await(timeout:file:line:)``.
@usableFromInline
enum RunWait {
    /// Runs `task` as a child of the current run and blocks until its outcome is known, or
    /// until `timeout` seconds have passed: then the run is cancelled (the task is not) and
    /// the outcome is ``TaskigError/timedOut``. A wait that would close a cycle of waits fails
    /// with ``TaskigError/deadlock(_:)`` and cancels its run in the same way.
    ///
    /// - Parameters:
    ///   - sharesCancellation: see `sharesCancellation` of
    ///     ``RunLaunch/launch(_:parent:sharesCancellation:mayGiveUp:releasesOnTaskCancellation:start:)``.
    ///   - site: where the wait was called, for the reports.
    @inlinable
    static func outcome<Work: ThrowableTaskType>(
        of task: Work,
        sharesCancellation: Bool = true,
        timeout: TimeInterval? = nil,
        at site: StaticCallSite
    ) -> Result<Work.ResultType, Error> {
        var deadline: DispatchTime?
        var start = RunLaunch.Start.waited
        if let timeout {
            requireCorrectUse(!timeout.isNaN, "await(timeout:) was given NaN; pass a number of seconds")
            guard timeout > 0 else { return .failure(TaskigError.timedOut) }
            let givesUpAt = DispatchTime.now() + min(timeout, Scheduling.longestDelay)
            deadline = givesUpAt
            start = .waitedUntil(givesUpAt)
        }
        let future = TaskKind.of(task).listenedRun
        // A future that has its outcome needs no run to be waited for.
        if let outcome = future?.cell.completedValue { return outcome }
        switch RunLaunch.launch(
            task, parent: CurrentRun.run, sharesCancellation: sharesCancellation, releasesOnTaskCancellation: true,
            start: start)
        {
        case .finished(let outcome):
            return outcome
        case .pending(let cell, let run):
            // A future's waiters wait for the future's run; any other, for the run it made.
            let subject = {
                WaitSubject(
                    site: site, target: future?.run ?? run, hasDeadline: deadline != nil,
                    work: .task(
                        type: Work.self, queue: future == nil ? WorkQueue(task.executionQueue) : nil,
                        startedAt: future?.startedAt))
            }
            claimWorkOfFuture(task, start: start, for: subject)
            let failure: TaskigError
            switch BlockingWait.outcome(of: cell, until: deadline, for: subject) {
            case .value(let outcome): return outcome
            case .deadlinePassed: failure = .timedOut
            case .deadlock(let deadlock): failure = deadlock
            }
            // The waiter sees its failure before the run hears of the cancellation it causes.
            if cell.complete(with: .failure(failure)) { run?.cancel() }
            return cell.completedValue!
        }
    }

    /// Runs the work of a future that has not started yet on this thread, when this waiter may
    /// run it (see ``RunPlacement/of(_:wait:)``): a waiter that runs the work itself needs no
    /// second thread, and the work sent elsewhere then finds it started. On a serial queue the
    /// waiter holds, the work could not start anywhere else before the wait ends. While the
    /// work runs, the wait is published as waiting for it (see ``WaitRegistration``): the work
    /// is above it on this thread's stack, and may wait for a run below it.
    @inlinable
    static func claimWorkOfFuture<Work: ThrowableTaskType>(
        _ task: Work, start: RunLaunch.Start, for subject: () -> WaitSubject
    ) {
        guard let future = TaskKind.of(task).listenedRun, let workQueue = future.workQueue,
            RunPlacement.of(workQueue, wait: start.wait) == .inPlace, !future.hasStarted
        else { return }
        let registration = try? WaitRegistration.begin(subject(), parks: false).get()
        defer { registration?.end() }
        future.startIfNeeded()
    }
}
