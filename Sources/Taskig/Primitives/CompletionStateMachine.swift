/// The states of one run of a task: not started, started, completed. Pure logic, no locks.
///
/// A run is started at most once and completed at most once. Completing a run that has not
/// started (cancellation, a timeout) drops its work, so that work never starts. Callbacks
/// registered before completion are handed back to the caller to run outside the lock.
///
/// The machine is deliberately not generic: the value lives next to it in
/// ``CompletionCell``. Generic closure types here would make every release of a cell look
/// up type metadata at run time, which costs more than the rest of a wait.
@usableFromInline
struct CompletionStateMachine {
    @usableFromInline
    typealias Work = () -> Void

    @usableFromInline
    enum Phase {
        case notStarted(Work)
        case started
        case completed
    }

    @usableFromInline
    enum CompleteAction {
        /// The run was already completed; the new value must be ignored.
        case alreadyCompleted
        /// Store the value, then call each callback, in registration order.
        case deliver([CompletionCallback])
    }

    @usableFromInline
    enum AddCallbackAction {
        /// The callback will be called on completion.
        case stored
        /// The run is complete: call the callback now.
        case deliverNow
    }

    @usableFromInline
    var phase: Phase
    @usableFromInline
    var callbacks: [CompletionCallback] = []

    @inlinable
    init(work: @escaping Work) {
        phase = .notStarted(work)
    }

    /// A run whose work is not the cell's to start.
    @inlinable
    init(startedWithoutWork: Void) {
        phase = .started
    }

    @inlinable
    var isCompleted: Bool {
        if case .completed = phase { return true }
        return false
    }

    @inlinable
    var hasStarted: Bool {
        if case .notStarted = phase { return false }
        return true
    }

    /// Returns the work to start, exactly once over the life of the run, or `nil` when it
    /// was already started or the run is complete.
    @inlinable
    mutating func claimStart() -> Work? {
        guard case .notStarted(let work) = phase else { return nil }
        phase = .started
        return work
    }

    @inlinable
    mutating func complete() -> CompleteAction {
        if case .completed = phase { return .alreadyCompleted }
        phase = .completed
        defer { callbacks = [] }
        return .deliver(callbacks)
    }

    @inlinable
    mutating func addCallback(_ callback: CompletionCallback) -> AddCallbackAction {
        if case .completed = phase { return .deliverNow }
        callbacks.append(callback)
        return .stored
    }
}

/// A callback waiting for a cell's value, which it reads through the pointer it is given (see
/// ``CompletionCell/whenComplete(reading:)``).
///
/// A struct, not a bare closure: an array of closures keeps them in the form generic code
/// calls, and converting each closure into that form costs an allocation.
@usableFromInline
struct CompletionCallback {
    @usableFromInline
    let call: (_ value: UnsafeRawPointer) -> Void

    @inlinable
    init(_ call: @escaping (_ value: UnsafeRawPointer) -> Void) {
        self.call = call
    }
}
