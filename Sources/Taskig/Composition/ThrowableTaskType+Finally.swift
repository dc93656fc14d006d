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
        composed(on: queue) { FinallyStep(previous: $0, body: body) }
    }

    /// The same as ``finally(on:_:)`` on the global queue.
    ///
    /// ```swift
    /// let report = render(document).finally { spinner.stop() }
    /// ```
    @inlinable
    public func finally(_ body: @escaping @Sendable () -> Void) -> ThrowableTask<ResultType> {
        composed(on: nil) { FinallyStep(previous: $0, body: body) }
    }
}

/// The step of ``ThrowableTaskType/finally(on:_:)``.
@usableFromInline
struct FinallyStep<Value>: TypedChainStep {
    @usableFromInline
    typealias Input = Value

    @usableFromInline
    unowned(unsafe) let previous: TaskBody<Value>
    @usableFromInline
    let body: @Sendable () -> Void

    @inlinable
    init(previous: TaskBody<Value>, body: @escaping @Sendable () -> Void) {
        self.previous = previous
        self.body = body
    }

    @inlinable
    func apply(
        _ inputSlot: UnsafeMutableRawPointer, to outputSlot: UnsafeMutableRawPointer, in chain: ChainRun, position: Int
    ) -> Bool {
        let outcome = takeInput(inputSlot)
        body()
        return put(outcome, in: outputSlot)
    }
}
