/// The outcomes of an `awaitAllResults` that can be cancelled (through the run it is nested
/// in): each in its slot, and, once the batch is cancelled, every task that had not
/// settled yet counts as cancelled.
///
/// Lanes still running when the batch is cancelled finish their tasks after the caller has
/// its outcomes, so slots are written under a lock that the cancellation closes.
@usableFromInline
final class CancellableResultSlots<Value>: BatchSink {
    @usableFromInline
    struct State {
        @usableFromInline
        var slots: [Result<Value, Error>?]
        @usableFromInline
        var isClosed = false
        /// What the tasks that had not settled when the batch ended early failed with.
        @usableFromInline
        var unsettledFailure: Error = CancellableTaskError.taskWasCancelled

        @inlinable
        init(count: Int) {
            slots = Array(repeating: nil, count: count)
        }
    }

    @usableFromInline
    let state: LockedState<State>

    @inlinable
    init(count: Int) {
        state = LockedState(State(count: count))
    }

    @inlinable
    var mayEndEarly: Bool { false }

    @inlinable
    var endsOnCancellation: Bool { true }

    @inlinable
    func record(_ outcome: Result<Value, Error>, at index: Int) -> Bool {
        state.withLock { state in
            if !state.isClosed { state.slots[index] = outcome }
        }
        return false
    }

    @inlinable
    func recordCancellation() {
        state.withLock { $0.isClosed = true }
    }

    @inlinable
    func recordDeadlock(_ deadlock: TaskigError) {
        state.withLock { state in
            state.isClosed = true
            state.unsettledFailure = deadlock
        }
    }

    /// Every outcome, in input order, once the batch is over.
    @inlinable
    func outcomes() -> [Result<Value, Error>] {
        state.withLock { state in
            state.isClosed = true
            return state.slots.map { $0 ?? .failure(state.unsettledFailure) }
        }
    }
}
