import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one and, if it fails, runs the task `recovery` makes from the
    /// error and takes its outcome. Cancellation is a failure like any other; the recovering
    /// task runs as a child of the composed task's run.
    ///
    /// ```swift
    /// let page = fetch(primary).recover { _ in fetch(mirror) }
    /// ```
    @inlinable
    public func recover<Fallback: ThrowableTaskType>(
        on queue: DispatchQueue,
        _ recovery: @escaping @Sendable (Error) throws -> Fallback
    ) -> ThrowableTask<ResultType> where Fallback.ResultType == ResultType {
        composed(on: queue, producing: ResultType.self, runsOnFailure: true, recoverWithTaskStep(recovery))
    }

    /// The same as `recover(on:_:)` on the global queue.
    ///
    /// ```swift
    /// let page = fetch(primary).recover { _ in fetch(mirror) }
    /// ```
    @inlinable
    public func recover<Fallback: ThrowableTaskType>(
        _ recovery: @escaping @Sendable (Error) throws -> Fallback
    ) -> ThrowableTask<ResultType> where Fallback.ResultType == ResultType {
        composed(on: nil, producing: ResultType.self, runsOnFailure: true, recoverWithTaskStep(recovery))
    }

    /// The step of ``recover(on:_:)``'s form that recovers with a task: a failure makes the
    /// fallback task, which runs as a child of the chain's run.
    @inlinable
    func recoverWithTaskStep<Fallback: ThrowableTaskType>(
        _ recovery: @escaping @Sendable (Error) throws -> Fallback
    ) -> ChainStep.Apply where Fallback.ResultType == ResultType {
        // `Fallback` need not be `Sendable`, nor its conformance nonisolated, but a task's
        // contract lets Taskig run it from any thread, and that is all this step does with it.
        nonisolated(unsafe) let apply = {
            (
                inputSlot: UnsafeMutableRawPointer, outputSlot: UnsafeMutableRawPointer, chain: ChainRun, position: Int
            )
                -> Bool in
            let outcome = ChainSlot.take(inputSlot, as: ResultType.self)
            guard case .failure(let error) = outcome else { return ChainSlot.put(outcome, in: outputSlot) }
            do {
                return chain.startChild(try recovery(error), position: position, output: outputSlot)
            } catch {
                return ChainSlot.put(Result<ResultType, Error>.failure(error), in: outputSlot)
            }
        }
        return { inputSlot, outputSlot, chain, position in apply(inputSlot, outputSlot, chain, position) }
    }
}
