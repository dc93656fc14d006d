/// Those that must hear at once when a task is cancelled for good (``ThrowableTask/cancel()``)
/// without registering a handler on each task they run: a collection wait, whose lanes run
/// most tasks as plain calls with no run of their own, and whose caller must be released at
/// once when a task it does not run itself is cancelled (see "Cancelling tasks" in the
/// documentation). A handler per task would cost every task of every collection a handler
/// table and two locks; this costs a collection one registration, and a task's cancellation
/// for good one look at each collection in progress.
@usableFromInline
enum TaskCancellationListeners {
    @usableFromInline
    static let listeners = LockedState<[ObjectIdentifier: any TaskCancellationListener]>([:])

    @usableFromInline
    static func add(_ listener: any TaskCancellationListener) {
        listeners.withLock { $0[ObjectIdentifier(listener)] = listener }
    }

    @usableFromInline
    static func remove(_ listener: any TaskCancellationListener) {
        let removed = listeners.withLock { $0.removeValue(forKey: ObjectIdentifier(listener)) }
        // Released outside the lock: the last reference may free a collection.
        _ = removed
    }

    /// Tells every listener that some task was just cancelled for good. The listeners are
    /// called outside the lock: what they do may cancel more tasks.
    @usableFromInline
    static func taskWasCancelledForGood() {
        let current = listeners.withLock { Array($0.values) }
        for listener in current { listener.someTaskWasCancelledForGood() }
    }
}

/// See ``TaskCancellationListeners``.
@usableFromInline
protocol TaskCancellationListener: AnyObject, Sendable {
    /// Some task was cancelled for good: the listener looks whether it runs one.
    func someTaskWasCancelledForGood()
}
