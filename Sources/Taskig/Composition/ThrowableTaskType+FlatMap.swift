import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one, then the task `next` makes from its value, and takes that
    /// task's outcome (Bolts' "return a task from a continuation").
    ///
    /// A failure, cancellation included, skips `next`. The returned task runs as a child of
    /// the composed task's run: it is waited for without blocking a thread, and cancelling the
    /// composed run cancels it.
    ///
    /// ```swift
    /// let avatar = fetchUser(id).flatMap { user in fetchImage(user.avatarURL) }
    /// ```
    @inlinable
    public func flatMap<Next: ThrowableTaskType>(
        on queue: DispatchQueue,
        _ next: @escaping @Sendable (ResultType) throws -> Next
    ) -> ThrowableTask<Next.ResultType> {
        composed(on: queue, producing: Next.ResultType.self, runsOnFailure: false, flatMapStep(next))
    }

    /// The same as ``flatMap(on:_:)`` on the global queue.
    ///
    /// ```swift
    /// let avatar = fetchUser(id).flatMap { user in fetchImage(user.avatarURL) }
    /// ```
    @inlinable
    public func flatMap<Next: ThrowableTaskType>(
        _ next: @escaping @Sendable (ResultType) throws -> Next
    ) -> ThrowableTask<Next.ResultType> {
        composed(on: nil, producing: Next.ResultType.self, runsOnFailure: false, flatMapStep(next))
    }

    /// The step of ``flatMap(on:_:)``: a success makes the next task, which runs as a child
    /// of the chain's run.
    @inlinable
    func flatMapStep<Next: ThrowableTaskType>(
        _ next: @escaping @Sendable (ResultType) throws -> Next
    ) -> ChainStep.Apply {
        // `Next` need not be `Sendable`, nor its conformance nonisolated, but a task's contract
        // lets Taskig run it from any thread, and that is all this step does with it.
        nonisolated(unsafe) let apply = {
            (
                inputSlot: UnsafeMutableRawPointer, outputSlot: UnsafeMutableRawPointer, chain: ChainRun, position: Int
            )
                -> Bool in
            switch ChainSlot.take(inputSlot, as: ResultType.self) {
            case .success(let value):
                do {
                    return chain.startChild(try next(value), position: position, output: outputSlot)
                } catch {
                    return ChainSlot.put(Result<Next.ResultType, Error>.failure(error), in: outputSlot)
                }
            case .failure(let error):
                return ChainSlot.put(Result<Next.ResultType, Error>.failure(error), in: outputSlot)
            }
        }
        return { inputSlot, outputSlot, chain, position in apply(inputSlot, outputSlot, chain, position) }
    }
}
