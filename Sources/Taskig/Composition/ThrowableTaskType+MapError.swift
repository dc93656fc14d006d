import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one and replaces its error, if it fails, with the one
    /// `transform` returns. A value passes through unchanged.
    ///
    /// ```swift
    /// let config = loadConfig().mapError { AppError.configUnreadable(underlying: $0) }
    /// ```
    @inlinable
    public func mapError(
        on queue: DispatchQueue = .global(),
        _ transform: @escaping @Sendable (Error) -> Error
    ) -> ThrowableTask<ResultType> {
        continued(on: queue) { outcome in
            .finished(outcome.mapError(transform))
        }
    }
}
