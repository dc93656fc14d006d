import Synchronization

/// One lane of a ``Batch``: a loop on one thread that takes the next task, runs it to
/// completion, and takes the next, until none is left.
///
/// Each lane counts its own progress, so that lanes never write to the same counter for their
/// bookkeeping; the batch's looks at stuck lanes, and its `Progress`, read it (see ``Batch``).
@usableFromInline
final class BatchLane: Sendable {
    /// Goes up by one when the lane starts a task and by one when the task ends: odd while
    /// the lane is inside a task. Only the lane writes it, so plain stores do.
    @usableFromInline
    let progress = Atomic<UInt>(0)
    /// ``progress`` at the batch's last look.
    @usableFromInline
    let progressAtLastLook = Atomic<UInt>(0)

    @usableFromInline
    init() {}

    @inlinable
    func enterTask() {
        progress.store(progress.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    @inlinable
    func leaveTask() {
        progress.store(progress.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    /// How many tasks the lane has run to the end.
    @inlinable
    var settledCount: Int {
        Int(progress.load(ordering: .relaxed) / 2)
    }

    /// Whether the lane has been inside the same task since the batch's last look: then it
    /// is blocked or busy with a long task, and other tasks could use another lane.
    @usableFromInline
    func isStuckSinceLastLook() -> Bool {
        let now = progress.load(ordering: .relaxed)
        let before = progressAtLastLook.exchange(now, ordering: .relaxed)
        return now & 1 == 1 && now == before
    }
}
