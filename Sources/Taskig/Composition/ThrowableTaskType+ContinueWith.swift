import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one and then `continuation`, whatever the outcome (Bolts'
    /// `continueWith`; a promise's `then` and `catch` in one). A cancelled run is an outcome
    /// like any other: `continuation` sees ``CancellableTaskError/taskWasCancelled``.
    ///
    /// ```swift
    /// let status = upload(file).continueWith { result in
    ///     switch result {
    ///     case .success: return "uploaded"
    ///     case .failure(let error): return "failed: \(error)"
    ///     }
    /// }
    /// ```
    @inlinable
    public func continueWith<U>(
        on queue: DispatchQueue,
        _ continuation: @escaping @Sendable (Result<ResultType, Error>) throws -> U
    ) -> ThrowableTask<U> {
        composedContinueWith(on: queue, continuation)
    }

    /// The same as ``continueWith(on:_:)`` on the global queue.
    ///
    /// ```swift
    /// let status = upload(file).continueWith { result in "\(result)" }
    /// ```
    @inlinable
    public func continueWith<U>(
        _ continuation: @escaping @Sendable (Result<ResultType, Error>) throws -> U
    ) -> ThrowableTask<U> {
        composedContinueWith(on: nil, continuation)
    }

    /// The composed task of both `continueWith`s, on `queue` (`nil`: the default global queue).
    @inlinable
    func composedContinueWith<U>(
        on queue: DispatchQueue?, _ continuation: @escaping @Sendable (Result<ResultType, Error>) throws -> U
    ) -> ThrowableTask<U> {
        composed(on: queue, producing: U.self, runsOnFailure: true) { inputSlot, outputSlot, _, _ in
            let outcome = ChainSlot.take(inputSlot, as: ResultType.self)
            return ChainSlot.put(Result { try continuation(outcome) }, in: outputSlot)
        }
    }
}
