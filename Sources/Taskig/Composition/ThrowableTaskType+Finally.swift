import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one, then `body` whatever the outcome, then passes the outcome
    /// on unchanged (a promise's `finally`).
    ///
    /// `body` runs to its end, even if it blocks, before anyone waiting for the new task
    /// sees the outcome.
    ///
    /// ```swift
    /// let report = render(document).finally { spinner.stop() }
    /// ```
    @inlinable
    public func finally(
        on queue: DispatchQueue = .global(),
        _ body: @escaping @Sendable () -> Void
    ) -> ThrowableTask<ResultType> {
        continued(on: queue) { outcome in
            body()
            return .finished(outcome)
        }
    }
}
