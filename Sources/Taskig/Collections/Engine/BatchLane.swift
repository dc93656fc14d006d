import Dispatch
import Synchronization

/// One lane of a ``Batch``: a loop on one thread that takes the next task, runs it to
/// completion, and takes the next, until none is left.
///
/// Each lane counts its own tasks, so that lanes never write to the same counter for their
/// bookkeeping; the batch's looks and its `Progress` read it (see ``Batch``).
///
/// A lane claims tasks from the batch in runs of consecutive indices (see ``takeClaimed()``),
/// and keeps the ones it has not started where other lanes can take them, so that a lane
/// blocked in a task holds back the tasks it claimed after it only until other lanes reach
/// them (see ``Batch``).
@usableFromInline
final class BatchLane: Sendable {
    /// Goes up by one when the lane starts a task and by one when the task ends: odd while
    /// the lane is inside a task. One writer at a time writes it (the lane's thread, then, for
    /// a task left pending, the callback that settles it), so plain stores do.
    @usableFromInline
    let taskBoundaries = Atomic<UInt>(0)
    /// Whether the lane's task was left pending: its outcome is still to come, and its thread
    /// went on without it (see ``Batch``). Such a lane is waiting, not stuck, and has no thread.
    @usableFromInline
    let isPending = Atomic(false)
    /// The tasks the lane claimed and nobody has started yet are `next..<end`. Any lane takes
    /// one by moving `next` on by one with a compare-and-exchange; only this lane sets a new
    /// range, once the old one is empty, `next` first. Both only grow, so a lane that read an
    /// old `next` fails its exchange, exactly one lane takes a range's last task, and one that
    /// read an old `end` sees too few tasks: the batch counts the lanes that hold tasks, so
    /// that a lane that saw none while some are held looks again instead of ending.
    @usableFromInline
    let next = Atomic(0)
    @usableFromInline
    let end = Atomic(0)
    /// How many tasks the lane claims at once, and when it claimed the last ones (uptime in
    /// nanoseconds). Only the thread running the lane uses them, but the thread may change
    /// (a lane left pending runs on again where its outcome arrives): atomics, read and written
    /// relaxed, are plain loads and stores, without the exclusivity checks that a class's
    /// variables pay on every access.
    @usableFromInline
    let claimSize = Atomic(1)
    @usableFromInline
    let lastClaim = Atomic<UInt64>(0)
    /// Whether the lane's thread has begun running it: set by the caller for its own lane,
    /// and by the lane when its thread takes it up. Only used under the batch's roster lock.
    @usableFromInline
    nonisolated(unsafe) var hasStarted: Bool
    /// How the thread running the lane spends its time: set with ``hasStarted``, under the
    /// batch's roster lock, when a thread takes the lane up.
    @usableFromInline
    nonisolated(unsafe) var threadTimes: ThreadTimes?
    /// What the batch's last look at the lane saw, and ``taskBoundaries`` when a look last gave
    /// the lane another beside it: only the looks use them, and they run one after another
    /// (see ``Batch/look(after:)``).
    @usableFromInline
    nonisolated(unsafe) var lastLook: Look?
    @usableFromInline
    nonisolated(unsafe) var boundariesWhenHelped = UInt.max

    /// A look at the lane's thread: which thread, its time on a core, the wall clock (uptime
    /// in nanoseconds), and the lane's ``taskBoundaries``.
    @usableFromInline
    struct Look {
        @usableFromInline
        let times: ThreadTimes
        @usableFromInline
        let onCore: UInt64
        @usableFromInline
        let wall: UInt64
        @usableFromInline
        let boundaries: UInt
    }

    /// A lane that `hasStarted` when the caller runs it on its own thread.
    @usableFromInline
    init(hasStarted: Bool) {
        self.hasStarted = hasStarted
    }

    @inlinable
    func enterTask() {
        taskBoundaries.store(taskBoundaries.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    @inlinable
    func leaveTask() {
        taskBoundaries.store(taskBoundaries.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    /// Takes the first task of this lane's claimed ones that nobody has started, and says
    /// whether it was the last; called by this lane, or by another one.
    @inlinable
    func takeClaimed() -> (index: Int, wasLast: Bool)? {
        var index = next.load(ordering: .relaxed)
        while true {
            // Acquiring: having seen the new `end` of a range, the exchange sees its new `next`.
            let end = end.load(ordering: .acquiring)
            guard index < end else { return nil }
            let (exchanged, original) = next.compareExchange(
                expected: index, desired: index + 1, ordering: .relaxed)
            if exchanged { return (index, index + 1 == end) }
            index = original
        }
    }

    /// Takes every one of this lane's claimed tasks that nobody has started, for a lane that
    /// takes over from this one; `nil` when there is none.
    @inlinable
    func takeAllClaimed() -> Range<Int>? {
        var index = next.load(ordering: .relaxed)
        while true {
            let end = end.load(ordering: .acquiring)
            guard index < end else { return nil }
            let (exchanged, original) = next.compareExchange(expected: index, desired: end, ordering: .relaxed)
            if exchanged { return index..<end }
            index = original
        }
    }

    /// The first of this lane's claimed tasks that nobody has started, if any.
    @inlinable
    var firstClaimedTask: Int? {
        let index = next.load(ordering: .relaxed)
        return index < end.load(ordering: .acquiring) ? index : nil
    }

    /// How many tasks to claim now: twice as many as last time when they ended quickly, one
    /// otherwise.
    @inlinable
    func nextClaimSize() -> Int {
        let now = DispatchTime.now().uptimeNanoseconds
        let claimedQuickly = now &- lastClaim.load(ordering: .relaxed) < CollectionTuning.quickClaimNanoseconds
        let size = claimedQuickly ? min(2 * claimSize.load(ordering: .relaxed), CollectionTuning.largestClaim) : 1
        claimSize.store(size, ordering: .relaxed)
        lastClaim.store(now, ordering: .relaxed)
        return size
    }

    /// Keeps `claimed`, just claimed from the batch and not empty, for this lane; only when
    /// none of its claimed tasks is left.
    @inlinable
    func hold(_ claimed: Range<Int>) {
        next.store(claimed.lowerBound, ordering: .relaxed)
        end.store(claimed.upperBound, ordering: .releasing)
    }

    /// How many tasks the lane has run to the end.
    @inlinable
    var settledCount: Int {
        Int(taskBoundaries.load(ordering: .relaxed) / 2)
    }

    /// Whether the lane is blocked in its task, from a look at `now` at its thread (`times`):
    /// it is inside a task, its thread is blocked now (in a sleep, a synchronous read, a
    /// semaphore), and it was on a core for less than ``CollectionTuning/blockedLaneCoreShare``
    /// of the time since the last look, when that look saw the same thread.
    @usableFromInline
    func isBlockedInATask(now: UInt64, times: ThreadTimes) -> Bool {
        let boundaries = taskBoundaries.load(ordering: .relaxed)
        guard let reading = times.sample() else { return false }
        let previous = lastLook
        lastLook = Look(times: times, onCore: reading.onCore, wall: now, boundaries: boundaries)
        // Between tasks the thread runs the caller's code, a `completions` loop's body, say.
        guard boundaries & 1 == 1, reading.isBlocked else { return false }
        guard let previous, previous.times == times, now > previous.wall else { return true }
        return Double(reading.onCore &- previous.onCore)
            < CollectionTuning.blockedLaneCoreShare * Double(now - previous.wall)
    }

    /// Whether a look gave the lane another beside it during the task it was in at the last
    /// look.
    @usableFromInline
    var wasHelpedInThisTask: Bool {
        lastLook?.boundaries == boundariesWhenHelped
    }

    /// Notes that the last look gave the lane another beside it.
    @usableFromInline
    func noteHelped() {
        boundariesWhenHelped = lastLook?.boundaries ?? .max
    }
}
