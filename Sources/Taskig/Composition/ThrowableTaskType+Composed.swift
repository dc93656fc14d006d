import Dispatch

extension ThrowableTaskType {
    /// A composed task that runs this one and then `apply`, which turns this task's outcome
    /// into one of `U`, on `queue` (`nil`: the default global queue).
    @inlinable
    func composed<U>(
        on queue: DispatchQueue?,
        producing _: U.Type,
        runsOnFailure: Bool,
        _ apply: @escaping ChainStep.Apply
    ) -> ThrowableTask<U> {
        ThrowableTask(
            body: TaskBody<U>(continuing: composableBody, with: apply, runsOnFailure: runsOnFailure, on: queue))
    }

    /// This task as a body that a composed task can continue: a ``ThrowableTask``'s own body,
    /// or a body that runs this task (or listens to this future).
    @inlinable
    var composableBody: TaskBody<ResultType> {
        switch TaskKind.of(self) {
        case .throwable(let body): return body
        case .listening(let future): return TaskBody(onDefaultQueue: .listening(future.listened))
        case .plain, .foreign: return TaskBody(queue: executionQueue, work: .source(AdaptedWork(task: self)))
        }
    }
}

/// The work of a body made from a task of another type: one run of that task.
@usableFromInline
final class AdaptedWork<Work: ThrowableTaskType>: SourceWork {
    /// A task's contract lets Taskig start it from any thread, which is all this does with it.
    @usableFromInline
    nonisolated(unsafe) let task: Work

    @inlinable
    init(task: Work) {
        self.task = task
    }

    @inlinable
    func start(reportingTo completion: @escaping @Sendable (Result<Work.ResultType, Error>) -> Void) {
        if (task as? CancellableTaskType)?.isCancelled == true {
            completion(.failure(CancellableTaskError.taskWasCancelled))
            return
        }
        // A task of another type than Taskig's own (see ``ThrowableTaskType/composableBody``):
        // its handler is watched.
        task.action(completion: WatchedHandler.watching(completion, of: task))
    }
}
