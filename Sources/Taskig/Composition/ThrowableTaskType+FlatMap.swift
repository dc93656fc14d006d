import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one, then the task `next` makes from its value, and takes that
    /// task's outcome (Bolts' "return a task from a continuation").
    ///
    /// A failure, cancellation included, skips `next`. The returned task runs as a child of
    /// the composed task's run: it is waited for without blocking a thread, and cancelling the
    /// composed run cancels it.
    ///
    /// ```swift
    /// let avatar = fetchUser(id).flatMap { user in fetchImage(user.avatarURL) }
    /// ```
    @inlinable
    public func flatMap<Next: ThrowableTaskType>(
        on queue: DispatchQueue,
        _ next: @escaping @Sendable (ResultType) throws -> Next
    ) -> ThrowableTask<Next.ResultType> {
        composed(on: queue) { FlatMapStep(previous: $0, next: next) }
    }

    /// The same as ``flatMap(on:_:)`` on the global queue.
    ///
    /// ```swift
    /// let avatar = fetchUser(id).flatMap { user in fetchImage(user.avatarURL) }
    /// ```
    @inlinable
    public func flatMap<Next: ThrowableTaskType>(
        _ next: @escaping @Sendable (ResultType) throws -> Next
    ) -> ThrowableTask<Next.ResultType> {
        composed(on: nil) { FlatMapStep(previous: $0, next: next) }
    }
}

/// The step of ``ThrowableTaskType/flatMap(on:_:)``.
@usableFromInline
struct FlatMapStep<Input, Next: ThrowableTaskType>: TypedChainStep {
    @usableFromInline
    typealias Value = Next.ResultType

    @usableFromInline
    unowned(unsafe) let previous: TaskBody<Input>
    @usableFromInline
    let next: @Sendable (Input) throws -> Next

    @inlinable
    init(previous: TaskBody<Input>, next: @escaping @Sendable (Input) throws -> Next) {
        self.previous = previous
        self.next = next
    }

    @inlinable
    func apply(
        _ inputSlot: UnsafeMutableRawPointer, to outputSlot: UnsafeMutableRawPointer, in chain: ChainRun, position: Int
    ) -> Bool {
        switch takeInput(inputSlot) {
        case .success(let value):
            do {
                return chain.startChild(try next(value), position: position, output: outputSlot)
            } catch {
                return put(.failure(error), in: outputSlot)
            }
        case .failure(let error):
            return put(.failure(error), in: outputSlot)
        }
    }
}
