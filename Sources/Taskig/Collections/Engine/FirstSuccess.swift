/// The first success of an `awaitAny`, which ends the batch, or every failure.
@usableFromInline
final class FirstSuccess<Value>: BatchSink {
    @usableFromInline
    struct State {
        @usableFromInline
        var winner: Value?
        @usableFromInline
        var errors: [Error?]
        @usableFromInline
        var wasCancelled = false

        @inlinable
        init(count: Int) {
            errors = Array(repeating: nil, count: count)
        }
    }

    @usableFromInline
    let state: LockedState<State>

    @inlinable
    init(count: Int) {
        state = LockedState(State(count: count))
    }

    @inlinable
    var mayEndEarly: Bool { true }

    @inlinable
    var isRace: Bool { true }

    @inlinable
    var endsOnCancellation: Bool { true }

    @inlinable
    func record(_ outcome: Result<Value, Error>, at index: Int) -> Bool {
        state.withLock { state in
            switch outcome {
            case .success(let value):
                if state.winner == nil && !state.wasCancelled { state.winner = value }
                return true
            case .failure(let error):
                state.errors[index] = error
                return false
            }
        }
    }

    @inlinable
    func recordCancellation() {
        state.withLock { state in
            if state.winner == nil { state.wasCancelled = true }
        }
    }

    /// The winner, once the batch is over; or every error, in input order.
    @inlinable
    func value() throws -> Value {
        try state.withLock { state in
            if let winner = state.winner { return winner }
            if state.wasCancelled { throw CancellableTaskError.taskWasCancelled }
            throw TaskigError.allFailed(state.errors.map { $0! })
        }
    }
}
