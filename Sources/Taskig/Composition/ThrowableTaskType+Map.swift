import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one and transforms its value (Bolts' `continueOnSuccessWith`,
    /// a promise's `then`).
    ///
    /// A failure skips `transform` and passes through unchanged; an error `transform` throws
    /// fails the new task.
    ///
    /// ```swift
    /// let length = ThrowableTask { try String(contentsOf: url) }.map { $0.count }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: where `transform` runs. On a global queue (the default) it runs on
    ///     whichever thread finished the step before; on any other queue it runs on that queue.
    ///   - transform: makes the new value from this task's value.
    @inlinable
    public func map<U>(
        on queue: DispatchQueue = .global(),
        _ transform: @escaping @Sendable (ResultType) throws -> U
    ) -> ThrowableTask<U> {
        continued(on: queue) { outcome in
            .finished(
                outcome.typed(as: ResultType.self).flatMap { value in
                    Result { try transform(value) as Any }
                })
        }
    }
}
