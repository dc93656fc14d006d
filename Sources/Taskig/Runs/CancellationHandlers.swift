/// The handlers registered on one ``CancellationWord``, made when the first one registers.
///
/// The word decides whether a handler may still be added; this table keeps the handlers in
/// registration order and hands them out exactly once: to the thread that cancels, or back
/// to nobody when the word is closed. Handlers always run outside the lock, so a handler
/// may cancel other words or register more handlers.
///
/// It also keeps, for a ``Run``, the keys of the handlers the run registered on its parent
/// and on its task (see ``Run/linkUpward()``), so that closing the run removes them.
///
/// The table is one allocation, the buffer of a ``LockedState``, which the word points at;
/// this struct is a view of it. Most words get one or two handlers, so those are kept inline
/// and only the rest go in an array.
@usableFromInline
struct CancellationHandlers: Sendable {
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

    /// A handler and the key that removes it. A struct rather than a tuple: a closure kept in
    /// a tuple in an array is converted, at the cost of an allocation, into the form generic
    /// code calls.
    @usableFromInline
    struct Entry {
        @usableFromInline
        let key: Key
        @usableFromInline
        let handler: @Sendable () -> Void

        @inlinable
        init(key: Key, handler: @escaping @Sendable () -> Void) {
            self.key = key
            self.handler = handler
        }
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
        var first: Entry?
        @usableFromInline
        var second: Entry?
        @usableFromInline
        var others: [Entry] = []
        @usableFromInline
        var linkPhase = LinkPhase.unlinked
        /// The run whose outcome the owner's work waits for while it holds no thread (see
        /// ``Run/noteWaiting(for:)``); kept here, under the table's lock, so that the wait-for
        /// cycle check reads it safely from other threads.
        @usableFromInline
        var waitingFor: Run?

        @inlinable
        init() {}

        /// Takes every handler out, in registration order.
        @inlinable
        mutating func takeAll() -> Taken {
            defer {
                first = nil
                second = nil
                others = []
            }
            return Taken(first: first, second: second, others: others)
        }

        /// Adds a handler after the others.
        @inlinable
        mutating func append(_ entry: Entry) {
            if first == nil {
                first = entry
            } else if second == nil {
                second = entry
            } else {
                others.append(entry)
            }
        }

        /// Takes out the handler registered under `key`, if it is here.
        @inlinable
        mutating func remove(_ key: Key) -> Entry? {
            if let entry = first, entry.key == key {
                first = second
                second = others.isEmpty ? nil : others.removeFirst()
                return entry
            }
            if let entry = second, entry.key == key {
                second = others.isEmpty ? nil : others.removeFirst()
                return entry
            }
            guard let index = others.firstIndex(where: { $0.key == key }) else { return nil }
            return others.remove(at: index)
        }
    }

    /// Handlers taken out of the table, in registration order: run by ``CancellationPropagation``.
    @usableFromInline
    struct Taken: DrainItem {
        @usableFromInline
        let first: Entry?
        @usableFromInline
        let second: Entry?
        @usableFromInline
        let others: [Entry]

        @inlinable
        init(first: Entry?, second: Entry?, others: [Entry]) {
            self.first = first
            self.second = second
            self.others = others
        }

        /// Runs every handler, in registration order.
        @inlinable
        func run() {
            first?.handler()
            second?.handler()
            for entry in others { entry.handler() }
        }
    }

    @usableFromInline
    let state: LockedState<State>

    /// A new, empty table.
    @inlinable
    init() {
        state = LockedState(State())
    }

    /// The table whose buffer is `buffer`.
    @inlinable
    init(buffer: ManagedBuffer<State, Platform.Lock.Primitive>) {
        state = LockedState(buffer: buffer)
    }

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
            state.append(Entry(key: key, handler: handler))
            return .stored(key)
        }
        switch decision {
        case .stored(let key): return key
        case .runNow: handler()
        case .drop: break
        }
        return nil
    }

    /// Removes the handler registered under `key`, if it has not run.
    @usableFromInline
    func remove(_ key: Key) {
        let removed = state.withLock { $0.remove(key) }
        // Released outside the lock: what the handler captured may do work when freed.
        _ = removed
    }

    /// Runs every handler, once, in registration order.
    @usableFromInline
    func cancel() {
        let handlers = state.withLock { state -> Taken? in
            guard !state.isCancelled && !state.isClosed else { return nil }
            state.isCancelled = true
            return state.takeAll()
        }
        if let handlers { CancellationPropagation.run(handlers) }
    }

    /// Drops every handler and returns the links a run had made, for it to remove.
    @usableFromInline
    func close() -> Links? {
        let (dropped, waitedFor, links) = state.withLock { state -> (Taken, Run?, Links?) in
            state.isClosed = true
            let dropped = state.takeAll()
            let waitedFor = state.waitingFor.take()
            guard case .linked(let links) = state.linkPhase else { return (dropped, waitedFor, nil) }
            state.linkPhase = .unlinked
            return (dropped, waitedFor, links)
        }
        // Released outside the lock, like a removed handler.
        _ = (dropped, waitedFor)
        return links
    }

    /// Closes the table of a word that was cancelled before it closed: runs the handlers, here,
    /// when the thread that cancelled the word has not taken them yet. The owner may have seen
    /// the cancellation and ended at once, and its handlers must still run.
    @usableFromInline
    func closeAfterCancellation() -> Links? {
        let handlers = state.withLock { state -> Taken? in
            guard !state.isCancelled && !state.isClosed else { return nil }
            state.isCancelled = true
            return state.takeAll()
        }
        if let handlers { CancellationPropagation.run(handlers) }
        return close()
    }

    /// Notes `run` as the one the owner's work waits for, replacing the last; nothing once the
    /// table is closed.
    @usableFromInline
    func noteWaiting(for run: Run?) {
        let replaced = state.withLock { state -> Run? in
            guard !state.isClosed else { return nil }
            defer { state.waitingFor = run }
            return state.waitingFor
        }
        _ = replaced
    }

    /// The run the owner's work waits for, if it noted one.
    @usableFromInline
    var waitingFor: Run? {
        state.withLock { $0.waitingFor }
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

/// Runs the handlers of cancelled tables one table after another instead of one inside
/// another.
///
/// A run's handler on its parent cancels the run, whose handlers cancel its children, and so
/// on: cancelling the root of a run tree a million deep would nest a million calls. So the
/// handlers run through a ``ThreadLocalDrain``: the first cancellation on a thread runs its
/// handlers and stays to run those their cancellations take out, in the order they were
/// taken; a cancellation made meanwhile only queues its handlers.
enum CancellationPropagation {
    private static let drain = ThreadLocalDrain<CancellationHandlers.Taken>()

    /// Runs `handlers` now, or after the handlers this thread is running return.
    static func run(_ handlers: CancellationHandlers.Taken) {
        drain.run(handlers)
    }
}
