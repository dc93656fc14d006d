import Dispatch

/// Makes the ``CompletionCell`` for one run of a task, wired to the task's cancellation.
@usableFromInline
enum TaskRun {
    @inlinable
    static func cell<Work: TaskType>(for task: Work) -> CompletionCell<Work.ResultType> {
        CompletionCell(work: { complete in task.action(completion: complete) })
    }

    @inlinable
    static func cell<Work: ThrowableTaskType>(
        for task: Work
    ) -> CompletionCell<Result<Work.ResultType, Error>> {
        // A task that does not say so itself is asked once, when its run starts.
        let askedAtStart = task is ActionReportsCancellation ? nil : task as? CancellableTaskType
        let cell = CompletionCell<Result<Work.ResultType, Error>>(work: { complete in
            if askedAtStart?.isCancelled == true {
                complete(.failure(CancellableTaskError.taskWasCancelled))
            } else {
                task.action(completion: complete)
            }
        })
        if let token = (task as? CancellationTokenCarrier)?.cancellationToken {
            let handler = token.onCancel { [cell] in
                cell.complete(with: .failure(CancellableTaskError.taskWasCancelled))
            }
            if let handler {
                cell.whenComplete { _ in token.removeHandler(handler) }
            }
        }
        return cell
    }

    /// The value of `task` computed on this thread, when `task` is a ``Task`` on a global
    /// queue made from a value-returning closure: a waiter that stays until the work ends
    /// runs such a task in place (see ``RunPlacement``), and then the run is a plain call,
    /// with no cell, callback or lock. `nil` for any other task.
    @inlinable
    static func valueComputedInPlace<Work: TaskType>(of task: Work) -> Work.ResultType? {
        guard let task = task as? Task<Work.ResultType>, task.executionQueueKind == .globalConcurrent,
            case .returning(let produce) = task.work
        else { return nil }
        return produce()
    }

    /// The outcome of `task` computed on this thread, when `task` is a ``ThrowableTask`` on a
    /// global queue made from a value-returning closure; `nil` for any other task. Only for
    /// waiters that stay until the work ends.
    ///
    /// A task cancelled before it starts does not start. One cancelled while it ran reports
    /// the cancellation, as its waiter would have been told at the moment it happened, unless
    /// `cancellableWhileRunning` is `false` (the caller holds the task's only reference).
    @inlinable
    static func outcomeComputedInPlace<Work: ThrowableTaskType>(
        of task: Work,
        cancellableWhileRunning: Bool = true
    ) -> Result<Work.ResultType, Error>? {
        guard let task = task as? ThrowableTask<Work.ResultType>, task.executionQueueKind == .globalConcurrent,
            case .returning(let produce) = task.work
        else { return nil }
        let token = task.cancellationToken
        guard !token.isCancelled else { return .failure(CancellableTaskError.taskWasCancelled) }
        let outcome = CurrentCancellation.whileRunning(token) { Result(catching: produce) }
        guard cancellableWhileRunning, token.isCancelled else { return outcome }
        return .failure(CancellableTaskError.taskWasCancelled)
    }

    /// Whether `task` can be cancelled while its work runs, which releases its waiters.
    @inlinable
    static func isCancellableWhileRunning<Work>(_ task: Work) -> Bool {
        task is CancellationTokenCarrier
    }
}

/// A task whose cancellation Taskig can observe as it happens, not only before it starts.
@usableFromInline
protocol CancellationTokenCarrier {
    var cancellationToken: CancellationToken { get }
}

/// A task whose `action(completion:)` reports ``CancellableTaskError/taskWasCancelled`` itself
/// when it is cancelled, so a run need not ask `isCancelled` first.
@usableFromInline
protocol ActionReportsCancellation {}
