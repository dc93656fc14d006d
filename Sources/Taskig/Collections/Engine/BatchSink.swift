/// Where a ``Batch`` puts its outcomes, and which of them end it early.
@usableFromInline
protocol BatchSink<Outcome>: Sendable {
    associatedtype Outcome

    /// Whether some outcome can end the batch before every task settled (a failure under
    /// fail-fast, a race that was won), so that its caller must be free to return at once.
    var mayEndEarly: Bool { get }

    /// Whether the batch ends when its run is cancelled; a sink whose outcomes cannot say
    /// "cancelled" (a collection of tasks that cannot fail) waits for every task instead.
    var endsOnCancellation: Bool { get }

    /// Records the outcome of the task at `index`. Called once per index, by lanes on several
    /// threads at once; returns whether the outcome ends the batch.
    func record(_ outcome: Outcome, at index: Int) -> Bool

    /// Records that the batch was cancelled before it ended: called at most once, before
    /// the caller is released.
    func recordCancellation()
}
