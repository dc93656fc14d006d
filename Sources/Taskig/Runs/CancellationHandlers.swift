/// The handlers registered on one ``CancellationWord``, made when the first one registers.
///
/// The word decides whether a handler may still be added; this table keeps the handlers in
/// registration order and hands them out exactly once: to the thread that cancels, or back
/// to nobody when the word is closed. Handlers always run outside the lock, so a handler
/// may cancel other words or register more handlers.
///
/// It also keeps, for a ``Run``, the keys of the handlers the run registered on its parent
/// and on its task (see ``Run/linkUpward()``), so that closing the run removes them.
@usableFromInline
final class CancellationHandlers: Sendable {
    @usableFromInline
    typealias Key = UInt64

    /// Where a run's own cancellation handlers sit on the words above it.
    @usableFromInline
    struct Links: Sendable {
        @usableFromInline
        var onParent: Key?
        @usableFromInline
        var onTask: Key?

        @inlinable
        init(onParent: Key?, onTask: Key?) {
            self.onParent = onParent
            self.onTask = onTask
        }
    }

    /// Whether a run has registered itself on the words above it yet.
    @usableFromInline
    enum LinkPhase: Sendable {
        case unlinked
        case linking
        case linked(Links)
    }

    @usableFromInline
    struct State {
        @usableFromInline
        var isCancelled = false
        @usableFromInline
        var isClosed = false
        @usableFromInline
        var nextKey: Key = 0
        @usableFromInline
        var handlers: [(key: Key, handler: @Sendable () -> Void)] = []
        @usableFromInline
        var linkPhase = LinkPhase.unlinked

        @inlinable
        init() {}
    }

    @usableFromInline
    let state = LockedState(State())

    @usableFromInline
    init() {}

    /// Adds `handler`, or runs it at once when the table, or its word (`wordIsCancelled`,
    /// asked under the lock), was already cancelled; drops it when the table is closed.
    ///
    /// The word is cancelled before its table, so a thread that saw the word cancelled and
    /// then registers runs its handler itself, at once, rather than leave it to the thread
    /// that is about to run the table's handlers.
    @usableFromInline
    func add(_ handler: @escaping @Sendable () -> Void, wordIsCancelled: () -> Bool) -> Key? {
        enum Decision {
            case stored(Key)
            case runNow
            case drop
        }
        let decision = state.withLock { state -> Decision in
            if state.isClosed { return .drop }
            if state.isCancelled || wordIsCancelled() { return .runNow }
            let key = state.nextKey
            state.nextKey += 1
            state.handlers.append((key, handler))
            return .stored(key)
        }
        switch decision {
        case .stored(let key): return key
        case .runNow: handler()
        case .drop: break
        }
        return nil
    }

    @usableFromInline
    func remove(_ key: Key) {
        let removed = state.withLock { state -> (@Sendable () -> Void)? in
            guard let index = state.handlers.firstIndex(where: { $0.key == key }) else { return nil }
            return state.handlers.remove(at: index).handler
        }
        // Released outside the lock: what the handler captured may do work when freed.
        _ = removed
    }

    /// Runs every handler, once, in registration order.
    @usableFromInline
    func cancel() {
        let handlers = state.withLock { state -> [(key: Key, handler: @Sendable () -> Void)] in
            guard !state.isCancelled && !state.isClosed else { return [] }
            state.isCancelled = true
            defer { state.handlers = [] }
            return state.handlers
        }
        for entry in handlers { entry.handler() }
    }

    /// Drops every handler and returns the links a run had made, for it to remove.
    @usableFromInline
    func close() -> Links? {
        let (dropped, links) = state.withLock { state -> ([(key: Key, handler: @Sendable () -> Void)], Links?) in
            state.isClosed = true
            defer { state.handlers = [] }
            guard case .linked(let links) = state.linkPhase else { return (state.handlers, nil) }
            state.linkPhase = .unlinked
            return (state.handlers, links)
        }
        _ = dropped
        return links
    }

    /// Claims the right to link a run upward; `false` when it is linked, being linked, or
    /// closed.
    @usableFromInline
    func beginLinking() -> Bool {
        state.withLock { state in
            guard !state.isClosed, case .unlinked = state.linkPhase else { return false }
            state.linkPhase = .linking
            return true
        }
    }

    /// Records the links made after ``beginLinking()``. Returns `false` when the run closed
    /// meanwhile: then the caller removes them itself.
    @usableFromInline
    func finishLinking(_ links: Links) -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            state.linkPhase = .linked(links)
            return true
        }
    }
}
