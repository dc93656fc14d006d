import Synchronization

/// One run of a task: the work to start, claimed exactly once, and the one-shot result that
/// every waiter and callback sees.
///
/// This is the only place a run's state lives, and the only place a task's work and result
/// cross threads.
///
/// `@unchecked Sendable` is safe here: `machine` and `value` are only written while `lock`
/// is held, and `value` never changes once the machine is completed, so reading it after
/// observing completion under the lock is ordered. The work is handed to exactly the thread
/// that claims it under the lock. Callbacks run outside the lock so that they may re-enter
/// the cell.
@usableFromInline
final class CompletionCell<Value>: @unchecked Sendable {
    /// Work that reports its value through the callback it is given.
    @usableFromInline
    typealias Work = (_ complete: @escaping @Sendable (Value) -> Void) -> Void

    @usableFromInline
    let lock = Mutex(())
    // Guarded by `lock`; Swift's dynamic exclusivity checks would only repeat that.
    @exclusivity(unchecked) @usableFromInline
    var machine: CompletionStateMachine
    @exclusivity(unchecked) @usableFromInline
    var value: Value?

    /// A run of `work`. Nothing runs until someone calls ``startIfNeeded()``.
    @inlinable
    init(work: @escaping Work) {
        machine = CompletionStateMachine(work: {})
        // `startIfNeeded()` is the only caller of the work, and it runs on `self`, so the
        // cell is alive whenever the work runs.
        machine = CompletionStateMachine { [unowned(unsafe) self] in
            work { [self] value in self.complete(with: value) }
        }
    }

    @inlinable
    var completedValue: Value? {
        lock.withLock { _ in value }
    }

    @inlinable
    var hasStarted: Bool {
        lock.withLock { _ in machine.hasStarted }
    }

    /// Runs the work on the calling thread unless it has started already or the run is
    /// complete. Returns whether this call ran it.
    @inlinable
    @discardableResult
    func startIfNeeded() -> Bool {
        var work: CompletionStateMachine.Work?
        lock.withLock { _ in work = machine.claimStart() }
        guard let work else { return false }
        work()
        return true
    }

    /// Completes the run; later calls are ignored. Returns whether this call completed it.
    @inlinable
    @discardableResult
    func complete(with value: Value) -> Bool {
        var action = CompletionStateMachine.CompleteAction.alreadyCompleted
        lock.withLock { _ in
            action = machine.complete()
            if case .deliver = action { self.value = value }
        }
        guard case .deliver(let callbacks) = action else { return false }
        for callback in callbacks { callback() }
        return true
    }

    /// Calls `callback` with the result once there is one: at once, on this thread, when the
    /// run is already complete, otherwise on the thread that completes it.
    @inlinable
    func whenComplete(_ callback: @escaping (Value) -> Void) {
        var action = CompletionStateMachine.AddCallbackAction.stored
        var completedValue: Value?
        lock.withLock { _ in
            // The cell outlives its callbacks: they run from `complete(with:)`, on `self`.
            action = machine.addCallback { [unowned(unsafe) self] in callback(self.value!) }
            completedValue = value
        }
        if case .deliverNow = action { callback(completedValue!) }
    }
}
