/// The first outcome of a race (`awaitFirst`): it ends the batch.
@usableFromInline
final class FirstOutcome<Outcome>: BatchSink {
    @usableFromInline
    let first = LockedState<Outcome?>(nil)
    /// Makes the outcome a cancelled race has, when its tasks can report one.
    @usableFromInline
    let cancelled: (@Sendable () -> Outcome)?

    @inlinable
    init(cancelled: (@Sendable () -> Outcome)?) {
        self.cancelled = cancelled
    }

    @inlinable
    var mayEndEarly: Bool { true }

    @inlinable
    var isRace: Bool { true }

    @inlinable
    var endsOnCancellation: Bool { cancelled != nil }

    @inlinable
    func record(_ outcome: Outcome, at index: Int) -> Bool {
        first.withLock { first in
            if first == nil { first = outcome }
        }
        return true
    }

    @inlinable
    func recordCancellation() {
        first.withLock { first in
            if first == nil { first = cancelled?() }
        }
    }

    /// The winner, once the batch is over.
    @inlinable
    var outcome: Outcome { first.withLock { $0! } }
}
