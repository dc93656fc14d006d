import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one, then the task `next` makes from its value, and takes that
    /// task's outcome (Bolts' "return a task from a continuation").
    ///
    /// A failure skips `next`. The returned task is waited for without blocking a thread, and
    /// cancelling the new task cancels it.
    ///
    /// ```swift
    /// let avatar = fetchUser(id).flatMap { user in fetchImage(user.avatarURL) }
    /// ```
    @inlinable
    public func flatMap<Next: ThrowableTaskType>(
        on queue: DispatchQueue = .global(),
        _ next: @escaping @Sendable (ResultType) throws -> Next
    ) -> ThrowableTask<Next.ResultType> {
        // `Next` need not be `Sendable`, nor its conformance nonisolated, but a task's contract
        // lets Taskig run it from any thread, and that is all this step does with it.
        nonisolated(unsafe) let step = { (outcome: Result<Any, Error>) -> StepOutcome in
            switch outcome.typed(as: ResultType.self) {
            case .success(let value):
                do {
                    return .awaiting(AwaitedWork.run(of: try next(value)))
                } catch {
                    return .finished(.failure(error))
                }
            case .failure(let error):
                return .finished(.failure(error))
            }
        }
        return continued(on: queue) { outcome in step(outcome) }
    }
}
