import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one, then `body` whatever the outcome, then passes the outcome
    /// on unchanged (a promise's `finally`).
    ///
    /// `body` runs to its end, even if it blocks, before anyone waiting for the new task
    /// sees the outcome. It runs once per run, also when the run is cancelled: its waiter is
    /// released at once, and `body` runs when the step before it has stopped.
    ///
    /// ```swift
    /// let report = render(document).finally { spinner.stop() }
    /// ```
    @inlinable
    public func finally(
        on queue: DispatchQueue,
        _ body: @escaping @Sendable () -> Void
    ) -> ThrowableTask<ResultType> {
        composedFinally(on: queue, body)
    }

    /// The same as ``finally(on:_:)`` on the global queue.
    ///
    /// ```swift
    /// let report = render(document).finally { spinner.stop() }
    /// ```
    @inlinable
    public func finally(_ body: @escaping @Sendable () -> Void) -> ThrowableTask<ResultType> {
        composedFinally(on: nil, body)
    }

    /// The composed task of both `finally`s, on `queue` (`nil`: the default global queue).
    @inlinable
    func composedFinally(on queue: DispatchQueue?, _ body: @escaping @Sendable () -> Void) -> ThrowableTask<ResultType>
    {
        composed(on: queue, producing: ResultType.self, runsOnFailure: true) { inputSlot, outputSlot, _, _ in
            let outcome = ChainSlot.take(inputSlot, as: ResultType.self)
            body()
            return ChainSlot.put(outcome, in: outputSlot)
        }
    }
}
