import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one and replaces its error, if it fails, with the one
    /// `transform` returns. A value passes through unchanged. Cancellation is a failure like
    /// any other: `transform` sees ``CancellableTaskError/taskWasCancelled``.
    ///
    /// ```swift
    /// let config = loadConfig().mapError { AppError.configUnreadable(underlying: $0) }
    /// ```
    @inlinable
    public func mapError(
        on queue: DispatchQueue,
        _ transform: @escaping @Sendable (Error) -> Error
    ) -> ThrowableTask<ResultType> {
        composedMapError(on: queue, transform)
    }

    /// The same as ``mapError(on:_:)`` on the global queue.
    ///
    /// ```swift
    /// let config = loadConfig().mapError { AppError.configUnreadable(underlying: $0) }
    /// ```
    @inlinable
    public func mapError(_ transform: @escaping @Sendable (Error) -> Error) -> ThrowableTask<ResultType> {
        composedMapError(on: nil, transform)
    }

    /// The composed task of both `mapError`s, on `queue` (`nil`: the default global queue).
    @inlinable
    func composedMapError(
        on queue: DispatchQueue?, _ transform: @escaping @Sendable (Error) -> Error
    ) -> ThrowableTask<ResultType> {
        composed(on: queue, producing: ResultType.self, runsOnFailure: true) { inputSlot, outputSlot, _, _ in
            ChainSlot.put(ChainSlot.take(inputSlot, as: ResultType.self).mapError(transform), in: outputSlot)
        }
    }
}
