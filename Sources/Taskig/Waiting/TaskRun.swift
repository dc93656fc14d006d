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
