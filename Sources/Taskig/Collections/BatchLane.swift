import Synchronization

/// One lane of a ``Batch``: a loop on one thread that takes the next task, runs it to
/// completion, and takes the next, until none is left.
///
/// Each lane counts its own progress, so that lanes never write to the same counter for their
/// bookkeeping; the batch's looks at stuck lanes, and its `Progress`, read it (see ``Batch``).
///
/// The counter is written twice per task, so it gets cache lines of its own: lanes are made
/// one after the other, and two small lane objects side by side in memory would share a line
/// that each lane's writes take from the other's core on every task.
@usableFromInline
final class BatchLane: Sendable {
    @usableFromInline
    let spaceBefore: CacheLineSpace = (0, 0, 0, 0, 0, 0, 0, 0)
    /// Goes up by one when the lane starts a task and by one when the task ends: odd while
    /// the lane is inside a task. Only the lane writes it, so plain stores do.
    @usableFromInline
    let progress = Atomic<UInt>(0)
    /// ``progress`` at the batch's last look.
    @usableFromInline
    let progressAtLastLook = Atomic<UInt>(0)
    @usableFromInline
    let spaceAfter: CacheLineSpace = (0, 0, 0, 0, 0, 0, 0, 0)

    /// 64 bytes, a cache line on the processors Taskig runs on.
    @usableFromInline
    typealias CacheLineSpace = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

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
