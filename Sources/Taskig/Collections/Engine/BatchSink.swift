/// Where a ``Batch`` puts its outcomes, and which of them end it early.
@usableFromInline
protocol BatchSink<Outcome>: Sendable {
    associatedtype Outcome

    /// Whether some outcome can end the batch before every task settled (a failure under
    /// fail-fast, a race that was won), so that its caller must be free to return at once.
    var mayEndEarly: Bool { get }

    /// Whether the batch is a race, which the first outcome (or the first success) ends: its
    /// lanes all start at once, up to `concurrency`, since the first to finish means something
    /// only when every runner runs. Other batches start one lane per core and add lanes only
    /// beside lanes that block (see ``Batch``).
    var isRace: Bool { get }

    /// Whether the batch ends when its run is cancelled; a sink whose outcomes cannot say
    /// "cancelled" (a collection of tasks that cannot fail) waits for every task instead.
    var endsOnCancellation: Bool { get }

    /// Records the outcome of the task at `index`. Called once per index, by lanes on several
    /// threads at once; returns whether the outcome ends the batch.
    func record(_ outcome: Outcome, at index: Int) -> Bool

    /// Records that the batch was cancelled before it ended: called at most once, before
    /// the caller is released.
    func recordCancellation()

    /// Records that the batch's caller would have closed a cycle of waits (see
    /// ``Batch/end(deadlock:)``): called at most once, before the caller is released, and only
    /// for a batch that waits for every task (`mayEndEarly` is `false`).
    func recordDeadlock(_ deadlock: TaskigError)
}

extension BatchSink {
    @inlinable
    var isRace: Bool { false }

    @inlinable
    func recordDeadlock(_ deadlock: TaskigError) {
        preconditionFailure("BUG IN TASKIG: a batch that may end early was in a cycle of waits")
    }
}
