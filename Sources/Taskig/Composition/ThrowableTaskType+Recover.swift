import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one and, if it fails, turns the error into a value (a promise's
    /// `catch`). A value passes through unchanged; an error `recovery` throws fails the task.
    ///
    /// ```swift
    /// let settings = loadSettings().recover { _ in Settings.defaults }
    /// ```
    @inlinable
    public func recover(
        on queue: DispatchQueue = .global(),
        _ recovery: @escaping @Sendable (Error) throws -> ResultType
    ) -> ThrowableTask<ResultType> {
        continued(on: queue) { outcome in
            switch outcome {
            case .success:
                return .finished(outcome)
            case .failure(let error):
                return .finished(Result { try recovery(error) as Any })
            }
        }
    }

    /// A task that runs this one and, if it fails, runs the task `recovery` makes from the
    /// error and takes its outcome.
    ///
    /// ```swift
    /// let page = fetch(primary).recover { _ in fetch(mirror) }
    /// ```
    @inlinable
    public func recover<Fallback: ThrowableTaskType>(
        on queue: DispatchQueue = .global(),
        _ recovery: @escaping @Sendable (Error) throws -> Fallback
    ) -> ThrowableTask<ResultType> where Fallback.ResultType == ResultType {
        // `Fallback` need not be `Sendable`, nor its conformance nonisolated, but a task's
        // contract lets Taskig run it from any thread, and that is all this step does with it.
        nonisolated(unsafe) let step = { (outcome: Result<Any, Error>) -> StepOutcome in
            guard case .failure(let error) = outcome else { return .finished(outcome) }
            do {
                return .awaiting(AwaitedWork.run(of: try recovery(error)))
            } catch {
                return .finished(.failure(error))
            }
        }
        return continued(on: queue) { outcome in step(outcome) }
    }
}
