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
        composed(on: queue) { MapErrorStep(previous: $0, transform: transform) }
    }

    /// The same as ``mapError(on:_:)`` on the global queue.
    ///
    /// ```swift
    /// let config = loadConfig().mapError { AppError.configUnreadable(underlying: $0) }
    /// ```
    @inlinable
    public func mapError(_ transform: @escaping @Sendable (Error) -> Error) -> ThrowableTask<ResultType> {
        composed(on: nil) { MapErrorStep(previous: $0, transform: transform) }
    }
}

/// The step of ``ThrowableTaskType/mapError(on:_:)``.
@usableFromInline
struct MapErrorStep<Value>: TypedChainStep {
    @usableFromInline
    typealias Input = Value

    @usableFromInline
    unowned(unsafe) let previous: TaskBody<Value>
    @usableFromInline
    let transform: @Sendable (Error) -> Error

    @inlinable
    init(previous: TaskBody<Value>, transform: @escaping @Sendable (Error) -> Error) {
        self.previous = previous
        self.transform = transform
    }

    @inlinable
    func apply(
        _ inputSlot: UnsafeMutableRawPointer, to outputSlot: UnsafeMutableRawPointer, in chain: ChainRun, position: Int
    ) -> Bool {
        put(takeInput(inputSlot).mapError(transform), in: outputSlot)
    }
}
