import Dispatch

extension ThrowableTaskType {
    /// A composed task whose last step is the one `makeStep` makes from this task's body, run
    /// on `queue` (`nil`: the default global queue).
    @inlinable
    func composed<Step: ChainStep>(
        on queue: DispatchQueue?,
        _ makeStep: (TaskBody<ResultType>) -> Step
    ) -> ThrowableTask<Step.Value> {
        let previous = composableBody
        // The step refers to `previous` unowned until the new body retains it.
        return withExtendedLifetime(previous) {
            let work = TaskBody<Step.Value>.Work.step(makeStep(previous))
            guard let queue else { return ThrowableTask(body: TaskBody(onDefaultQueue: work)) }
            return ThrowableTask(body: TaskBody(queue: queue, work: work))
        }
    }

    /// This task as a body that a composed task can continue: a ``ThrowableTask``'s own body,
    /// or a body that runs this task (or listens to this future).
    @inlinable
    var composableBody: TaskBody<ResultType> {
        if let task = self as? ThrowableTask<ResultType> { return task.body }
        if let future = self as? Future<ResultType> {
            return TaskBody(onDefaultQueue: .source(FutureListening(state: future.state)))
        }
        return TaskBody(queue: executionQueue, work: .source(AdaptedWork(task: self)))
    }
}

/// The work of a body made from a task of another type: one run of that task.
@usableFromInline
struct AdaptedWork<Work: ThrowableTaskType>: SourceWork {
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
        task.action(completion: completion)
    }
}

/// The work of a body that continues a future: waiting for its outcome, which never blocks.
@usableFromInline
struct FutureListening<Value>: SourceWork {
    @usableFromInline
    let state: FutureState<Value>

    @inlinable
    init(state: FutureState<Value>) {
        self.state = state
    }

    @inlinable
    var onlyListens: Bool { true }

    @inlinable
    func start(reportingTo completion: @escaping @Sendable (Result<Value, Error>) -> Void) {
        state.cell.whenComplete(completion)
    }
}
