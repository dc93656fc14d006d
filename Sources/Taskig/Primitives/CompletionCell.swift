/// One run of a task: the work to start, claimed exactly once, and the one-shot result that
/// every waiter and callback sees.
///
/// This is the only place a run's state lives, and the only place a task's work and result
/// cross threads. It is a reference: copies of a cell are the same run.
///
/// All state sits in one ``LockedState``: the ``CompletionStateMachine`` and the value. The
/// value never changes once the machine is completed. Work and callbacks run outside the
/// lock so that they may re-enter the cell, and callbacks go through ``CompletionDrain``, so
/// that completions set off by callbacks (a chain of futures, each completing the next) run
/// one after another instead of one inside another.
@usableFromInline
struct CompletionCell<Value>: Sendable {
    /// Work that reports its value through the callback it is given.
    @usableFromInline
    typealias Work = (_ complete: @escaping @Sendable (Value) -> Void) -> Void

    @usableFromInline
    struct State {
        /// First, so that its address is the state's (see ``valuePointer``).
        @usableFromInline
        var value: Value?
        @usableFromInline
        var machine: CompletionStateMachine

        @inlinable
        init(machine: CompletionStateMachine) {
            self.machine = machine
        }
    }

    @usableFromInline
    let state: LockedState<State>

    /// A cell that some other code completes: it has no work of its own to start.
    @inlinable
    init() {
        state = LockedState(State(machine: CompletionStateMachine(startedWithoutWork: ())))
    }

    /// A run of `work`. Nothing runs until someone calls ``startIfNeeded()``.
    @inlinable
    init(work: @escaping Work) {
        state = LockedState(State(machine: CompletionStateMachine(work: {})))
        // The stored work refers to its own cell without keeping it alive: only
        // `startIfNeeded()` runs it, and that is called on a cell someone holds.
        let unretained = Unmanaged.passUnretained(state.buffer)
        // No other thread can see the cell yet, so this needs no lock.
        ManagedBufferPointer<State, Platform.Lock.Primitive>(unsafeBufferObject: state.buffer)
            .withUnsafeMutablePointerToHeader { state in
                state.pointee.machine = CompletionStateMachine {
                    let cell = CompletionCell(state: LockedState(buffer: unretained.takeUnretainedValue()))
                    work { value in cell.complete(with: value) }
                }
            }
    }

    @inlinable
    init(state: LockedState<State>) {
        self.state = state
    }

    /// Whether the run is complete, without copying the value.
    @inlinable
    var isCompleted: Bool {
        state.withLock { $0.machine.isCompleted }
    }

    /// Whether the run's work has started, or the run is complete.
    @inlinable
    var hasStarted: Bool {
        state.withLock { $0.machine.hasStarted }
    }

    @inlinable
    var completedValue: Value? {
        state.withLock { $0.value }
    }

    /// Runs the work on the calling thread unless it has started already or the run is
    /// complete. Returns whether this call ran it.
    @inlinable
    @discardableResult
    func startIfNeeded() -> Bool {
        guard let work = state.withLock({ $0.machine.claimStart() }) else { return false }
        work()
        return true
    }

    /// Completes the run; later calls are ignored. Returns whether this call completed it.
    @inlinable
    @discardableResult
    func complete(with value: Value) -> Bool {
        let action = state.withLock { state in
            let action = state.machine.complete()
            if case .deliver = action { state.value = value }
            return action
        }
        guard case .deliver(let callbacks) = action else { return false }
        if !callbacks.isEmpty {
            CompletionDrain.deliver(callbacks, value: valuePointer, owner: state.buffer)
        }
        return true
    }

    /// Calls `callback` with the result once there is one: at once, on this thread, when the
    /// run is already complete, otherwise on the thread that completes it.
    @inlinable
    func whenComplete(_ callback: @escaping (Value) -> Void) {
        whenComplete(reading: { value in callback(Self.read(value)) })
    }

    /// Like ``whenComplete(_:)``, but `callback` gets the address of the value (see
    /// ``read(_:)``), which stays valid while it runs: for callers that pass the value on
    /// without a closure around theirs.
    @inlinable
    func whenComplete(reading callback: @escaping (_ value: UnsafeRawPointer) -> Void) {
        let isComplete = state.withLock { $0.machine.addCallback(CompletionCallback(callback)) == .deliverNow }
        if isComplete { callback(valuePointer) }
    }

    /// The address of the value, once there is one. It never changes after completion, so
    /// reading it needs no lock.
    ///
    /// The address is the state's own, since `value` is its first field: taken as an `inout`
    /// of the field instead, it would count as a write outside the lock, which
    /// ThreadSanitizer rightly reports against the locked accesses of other threads.
    @inlinable
    var valuePointer: UnsafeRawPointer {
        assert(MemoryLayout<State>.offset(of: \State.value) == 0, "BUG IN TASKIG: a cell's value is not first")
        return ManagedBufferPointer<State, Platform.Lock.Primitive>(unsafeBufferObject: state.buffer)
            .withUnsafeMutablePointerToHeader { UnsafeRawPointer($0) }
    }

    /// The value at an address a callback was given.
    @inlinable
    static func read(_ value: UnsafeRawPointer) -> Value {
        value.assumingMemoryBound(to: Value?.self).pointee!
    }
}
