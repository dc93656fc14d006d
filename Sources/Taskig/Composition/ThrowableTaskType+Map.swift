import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one and transforms its value (Bolts' `continueOnSuccessWith`,
    /// a promise's `then`).
    ///
    /// A failure, cancellation included, skips `transform` and passes through unchanged; an
    /// error `transform` throws fails the new task.
    ///
    /// ```swift
    /// let length = ThrowableTask { try String(contentsOf: url) }.map { $0.count }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: where `transform` runs. On a global queue it runs on whichever thread
    ///     finished the step before (off the main thread); on any other queue it runs on
    ///     that queue.
    ///   - transform: makes the new value from this task's value.
    @inlinable
    public func map<U>(
        on queue: DispatchQueue,
        _ transform: @escaping @Sendable (ResultType) throws -> U
    ) -> ThrowableTask<U> {
        composedMap(on: queue, transform)
    }

    /// A task that runs this one and transforms its value, on the global queue (see
    /// ``map(on:_:)-(DispatchQueue,_)``).
    ///
    /// ```swift
    /// let length = ThrowableTask { try String(contentsOf: url) }.map { $0.count }
    /// ```
    @inlinable
    public func map<U>(_ transform: @escaping @Sendable (ResultType) throws -> U) -> ThrowableTask<U> {
        composedMap(on: nil, transform)
    }

    /// The composed task of both `map`s: `transform` applied on `queue` (`nil`: the default global
    /// queue).
    @inlinable
    func composedMap<U>(
        on queue: DispatchQueue?, _ transform: @escaping @Sendable (ResultType) throws -> U
    ) -> ThrowableTask<U> {
        composed(on: queue, producing: U.self, runsOnFailure: false) { inputSlot, outputSlot, _, _ in
            ChainSlot.put(
                ChainSlot.take(inputSlot, as: ResultType.self).flatMap { value in Result { try transform(value) } },
                in: outputSlot)
        }
    }
}
