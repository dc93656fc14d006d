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
        composed(on: queue) { ContinueWithStep(previous: $0, continuation: continuation) }
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
        composed(on: nil) { ContinueWithStep(previous: $0, continuation: continuation) }
    }
}

/// The step of ``ThrowableTaskType/continueWith(on:_:)``.
@usableFromInline
struct ContinueWithStep<Input, Value>: TypedChainStep {
    @usableFromInline
    unowned(unsafe) let previous: TaskBody<Input>
    @usableFromInline
    let continuation: @Sendable (Result<Input, Error>) throws -> Value

    @inlinable
    init(previous: TaskBody<Input>, continuation: @escaping @Sendable (Result<Input, Error>) throws -> Value) {
        self.previous = previous
        self.continuation = continuation
    }

    @inlinable
    func apply(
        _ inputSlot: UnsafeMutableRawPointer, to outputSlot: UnsafeMutableRawPointer, in chain: ChainRun, position: Int
    ) -> Bool {
        let outcome = takeInput(inputSlot)
        return put(Result { try continuation(outcome) }, in: outputSlot)
    }
}
