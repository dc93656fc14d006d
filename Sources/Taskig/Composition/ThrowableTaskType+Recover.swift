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
        composed(on: queue) { RecoverStep(previous: $0, recovery: recovery) }
    }

    /// The same as `recover(on:_:)` on the global queue.
    ///
    /// ```swift
    /// let settings = loadSettings().recover { _ in Settings.defaults }
    /// ```
    @inlinable
    public func recover(_ recovery: @escaping @Sendable (Error) throws -> ResultType) -> ThrowableTask<ResultType> {
        composed(on: nil) { RecoverStep(previous: $0, recovery: recovery) }
    }
}

/// The step of ``ThrowableTaskType/recover(on:_:)-(_,(Error)->ResultType)``.
@usableFromInline
struct RecoverStep<Value>: TypedChainStep {
    @usableFromInline
    typealias Input = Value

    @usableFromInline
    unowned(unsafe) let previous: TaskBody<Value>
    @usableFromInline
    let recovery: @Sendable (Error) throws -> Value

    @inlinable
    init(previous: TaskBody<Value>, recovery: @escaping @Sendable (Error) throws -> Value) {
        self.previous = previous
        self.recovery = recovery
    }

    @inlinable
    func apply(
        _ inputSlot: UnsafeMutableRawPointer, to outputSlot: UnsafeMutableRawPointer, in chain: ChainRun, position: Int
    ) -> Bool {
        let outcome = takeInput(inputSlot)
        guard case .failure(let error) = outcome else { return put(outcome, in: outputSlot) }
        return put(Result { try recovery(error) }, in: outputSlot)
    }
}
