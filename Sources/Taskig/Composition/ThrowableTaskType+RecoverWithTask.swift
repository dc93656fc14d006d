import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one and, if it fails, runs the task `recovery` makes from the
    /// error and takes its outcome. Cancellation is a failure like any other; the recovering
    /// task runs as a child of the composed task's run.
    ///
    /// ```swift
    /// let page = fetch(primary).recover { _ in fetch(mirror) }
    /// ```
    @inlinable
    public func recover<Fallback: ThrowableTaskType>(
        on queue: DispatchQueue,
        _ recovery: @escaping @Sendable (Error) throws -> Fallback
    ) -> ThrowableTask<ResultType> where Fallback.ResultType == ResultType {
        composed(on: queue) { RecoverWithTaskStep(previous: $0, recovery: recovery) }
    }

    /// The same as `recover(on:_:)` on the global queue.
    ///
    /// ```swift
    /// let page = fetch(primary).recover { _ in fetch(mirror) }
    /// ```
    @inlinable
    public func recover<Fallback: ThrowableTaskType>(
        _ recovery: @escaping @Sendable (Error) throws -> Fallback
    ) -> ThrowableTask<ResultType> where Fallback.ResultType == ResultType {
        composed(on: nil) { RecoverWithTaskStep(previous: $0, recovery: recovery) }
    }
}

/// The step of ``ThrowableTaskType/recover(on:_:)-(_,(Error)->Fallback)``.
@usableFromInline
struct RecoverWithTaskStep<Fallback: ThrowableTaskType>: TypedChainStep {
    @usableFromInline
    typealias Value = Fallback.ResultType
    @usableFromInline
    typealias Input = Fallback.ResultType

    @usableFromInline
    unowned(unsafe) let previous: TaskBody<Value>
    @usableFromInline
    let recovery: @Sendable (Error) throws -> Fallback

    @inlinable
    init(previous: TaskBody<Value>, recovery: @escaping @Sendable (Error) throws -> Fallback) {
        self.previous = previous
        self.recovery = recovery
    }

    @inlinable
    func apply(
        _ inputSlot: UnsafeMutableRawPointer, to outputSlot: UnsafeMutableRawPointer, in chain: ChainRun, position: Int
    ) -> Bool {
        let outcome = takeInput(inputSlot)
        guard case .failure(let error) = outcome else { return put(outcome, in: outputSlot) }
        do {
            return chain.startChild(try recovery(error), position: position, output: outputSlot)
        } catch {
            return put(.failure(error), in: outputSlot)
        }
    }
}
