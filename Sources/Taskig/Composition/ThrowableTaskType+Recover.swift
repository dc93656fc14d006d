import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one and, if it fails, turns the error into a value (a promise's
    /// `catch`). A value passes through unchanged; an error `recovery` throws fails the task.
    /// Cancellation is a failure like any other, so it can be recovered from too.
    ///
    /// ```swift
    /// let settings = loadSettings().recover { _ in Settings.defaults }
    /// ```
    @inlinable
    public func recover(
        on queue: DispatchQueue,
        _ recovery: @escaping @Sendable (Error) throws -> ResultType
    ) -> ThrowableTask<ResultType> {
        composedRecover(on: queue, recovery)
    }

    /// The same as `recover(on:_:)` on the global queue.
    ///
    /// ```swift
    /// let settings = loadSettings().recover { _ in Settings.defaults }
    /// ```
    @inlinable
    public func recover(_ recovery: @escaping @Sendable (Error) throws -> ResultType) -> ThrowableTask<ResultType> {
        composedRecover(on: nil, recovery)
    }

    /// The composed task of both `recover`s, on `queue` (`nil`: the default global queue).
    @inlinable
    func composedRecover(
        on queue: DispatchQueue?, _ recovery: @escaping @Sendable (Error) throws -> ResultType
    ) -> ThrowableTask<ResultType> {
        composed(on: queue, producing: ResultType.self, runsOnFailure: true) { inputSlot, outputSlot, _, _ in
            let outcome = ChainSlot.take(inputSlot, as: ResultType.self)
            guard case .failure(let error) = outcome else { return ChainSlot.put(outcome, in: outputSlot) }
            return ChainSlot.put(Result { try recovery(error) }, in: outputSlot)
        }
    }
}
