/// The cancellation state shared by every copy of a task.
///
/// Cancelling is one-way and happens once; the handlers registered before it run exactly once,
/// outside the lock, on the thread that cancelled, in the order they were registered. The
/// order matters: a run registers its "release the waiters" handler before its work can
/// register anything, so waiters hear ``CancellableTaskError/taskWasCancelled`` before the
/// work hears of the cancellation and fails in its own way.
///
/// It is a value wrapping one locked allocation, so that a task costs one allocation for its
/// cancellation state; copies of a token are the same token.
@usableFromInline
struct CancellationToken: Sendable {
    @usableFromInline
    typealias HandlerID = UInt64

    @usableFromInline
    struct State {
        var isCancelled = false
        var nextID: HandlerID = 0
        var handlers: [HandlerID: @Sendable () -> Void] = [:]
    }

    /// A `var` only so that ``isOnlyReference()`` can ask; it is never reassigned.
    @usableFromInline
    private(set) var state: LockedState<State>

    @usableFromInline
    init() {
        state = LockedState(State())
    }

    /// The token whose state is `state`.
    init(state: LockedState<State>) {
        self.state = state
    }

    /// Whether no other copy of this token exists, so nobody else can ever cancel it.
    @inlinable
    mutating func isOnlyReference() -> Bool {
        state.isOnlyReference()
    }

    @usableFromInline
    var isCancelled: Bool {
        state.withLock { $0.isCancelled }
    }

    /// Cancels; returns `false` when the token was already cancelled.
    @usableFromInline
    @discardableResult
    func cancel() -> Bool {
        let handlers: [@Sendable () -> Void]? = state.withLock { state in
            guard !state.isCancelled else { return nil }
            state.isCancelled = true
            defer { state.handlers = [:] }
            return state.handlers.sorted { $0.key < $1.key }.map(\.value)
        }
        guard let handlers else { return false }
        for handler in handlers { handler() }
        return true
    }

    /// Registers `handler` to run on cancellation. When the token is already cancelled the
    /// handler runs at once and the result is `nil`.
    @usableFromInline
    func onCancel(_ handler: @escaping @Sendable () -> Void) -> HandlerID? {
        let id: HandlerID? = state.withLock { state in
            guard !state.isCancelled else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.handlers[id] = handler
            return id
        }
        if id == nil { handler() }
        return id
    }

    @usableFromInline
    func removeHandler(_ id: HandlerID) {
        _ = state.withLock { $0.handlers.removeValue(forKey: id) }
    }
}
