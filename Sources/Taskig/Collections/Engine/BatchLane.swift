import Dispatch
import Synchronization

/// One lane of a ``Batch``: a loop on one thread that takes the next task, runs it to
/// completion, and takes the next, until none is left.
///
/// Each lane counts its own tasks, so that lanes never write to the same counter for their
/// bookkeeping; the batch's looks and its `Progress` read it (see ``Batch``). Its fields are
/// all atomics that the lane writes once per task or claim, lock-free, as rows 2a, 10a and 12
/// of the benchmarks measure (a lock per task would have every lane meet on it); what the
/// roster knows of the lane is in ``BatchState/Lane``, and what the looks saw in ``LaneLooks``.
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
    /// Whether the code of the lane's task runs, for a task whose run Taskig makes (see
    /// ``UserCodeWatch``): ``taskBoundaries`` shifted left by one, plus one while that code
    /// runs. While the lane makes the run, and once the code has returned with the outcome still
    /// to come, the lane does Taskig's work (allocations, admitting a successor under the roster's
    /// lock), and its thread is not blocked in the task, however long it sleeps (see
    /// ``look(now:times:lastLook:)``). A task whose work is a plain call never sets it: its
    /// code is all the lane runs between ``enterTask()`` and ``leaveTask()``. Only the lane's
    /// thread writes it.
    @usableFromInline
    let userCode = Atomic<UInt>(.max)
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
    /// The index of the task the lane runs, from before its work starts until the lane has its
    /// outcome; ``noTask`` between tasks, and ``droppedTask`` once a task cancelled for good
    /// was settled without its lane (see ``Batch/someTaskWasCancelledForGood()``). The lane
    /// and the canceller each change it with one atomic operation, so that exactly one of them
    /// records the task's outcome. Only lanes of tasks that can be cancelled for good use it
    /// (see ``LaneWork/tasksCanBeCancelledForGood``): rows 10a and 12 (`await-all-throwable`,
    /// `await-all-results` and `completions` in `count-instructions.sh`) pay two per task.
    @usableFromInline
    let runningTask = Atomic(BatchLane.noTask)
    /// How many tasks the lane claims at once, and when it claimed the last ones (uptime in
    /// nanoseconds). Only the thread running the lane uses them, but the thread may change
    /// (a lane left pending runs on again where its outcome arrives): atomics, read and written
    /// relaxed, are plain loads and stores, without the exclusivity checks that a class's
    /// variables pay on every access.
    @usableFromInline
    let claimSize = Atomic(1)
    @usableFromInline
    let lastClaim = Atomic<UInt64>(0)

    /// A look at the lane's thread: which thread, its time on a core, the wall clock (uptime
    /// in nanoseconds), and the lane's ``taskBoundaries``.
    @usableFromInline
    struct Look: Sendable {
        @usableFromInline
        let times: ThreadTimes
        @usableFromInline
        let onCore: UInt64
        @usableFromInline
        let wall: UInt64
        @usableFromInline
        let boundaries: UInt
        /// Whether the thread was asleep in its task's own code.
        @usableFromInline
        let wasAsleepInTask: Bool
    }

    /// A lane: the roster knows whether a thread has taken it up (see ``BatchState/Lane``).
    @usableFromInline
    init() {}

    @inlinable
    func enterTask() {
        taskBoundaries.store(taskBoundaries.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    @inlinable
    static var noTask: Int { -1 }

    @inlinable
    static var droppedTask: Int { -2 }

    /// Shows that the lane runs the task at `index`: before the lane asks whether the task is
    /// cancelled, as a canceller sets that before it looks here (sequentially consistent, both).
    @inlinable
    @inline(__always)
    func beginRunning(_ index: Int) {
        runningTask.store(index, ordering: .sequentiallyConsistent)
    }

    /// Ends the lane's task; `false` when its outcome was settled without the lane, which then
    /// drops it.
    @inlinable
    @inline(__always)
    func endRunning() -> Bool {
        runningTask.exchange(Self.noTask, ordering: .acquiringAndReleasing) != Self.droppedTask
    }

    /// Takes the outcome of the task at `index` from the lane, which still runs it; `false`
    /// when the lane no longer runs it.
    @inlinable
    func dropRunningTask(_ index: Int) -> Bool {
        runningTask.compareExchange(expected: index, desired: Self.droppedTask, ordering: .acquiringAndReleasing)
            .exchanged
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

    /// What a look at a lane's thread finds.
    @usableFromInline
    enum LookFinding: Equatable, Sendable {
        /// Not blocked in a task: running, between tasks, or asleep on Taskig's work.
        case notBlocked
        /// Asleep in its task's own code, where the last look did not find it so: one instant,
        /// which a thread's brief sleep (a lock's, a page's, a sanitizer's) can also show, so a
        /// look soon after confirms it.
        case asleepInTask
        /// Blocked in its task: asleep in its tasks' own code at two looks in a row, and on a
        /// core for little of the time between.
        case blocked
    }

    /// What a look at `now` at the lane's thread (`times`) finds: blocked when the task's own
    /// code is running, its thread is blocked now (in a sleep, a synchronous read, a
    /// semaphore), the last look (`lastLook`, which becomes this one) found the same thread
    /// asleep in a task's code too (the same task, or another that also blocks), and the
    /// thread was on a core for less than ``CollectionTuning/blockedLaneCoreShare`` of the time
    /// since. A thread asleep on one of Taskig's locks between tasks, or outside the task's
    /// code (see ``userCode``), is not blocked in a task: another lane beside it would only
    /// contend for the same lock.
    @usableFromInline
    func look(now: UInt64, times: ThreadTimes, lastLook: inout Look?) -> LookFinding {
        let boundaries = taskBoundaries.load(ordering: .relaxed)
        guard let reading = times.sample() else { return .notBlocked }
        // Between tasks the thread runs the caller's code, a `completions` loop's body, say.
        let code = userCode.load(ordering: .relaxed)
        let isInTaskCode = code &>> 1 != boundaries || code & 1 == 1
        let isAsleepInTask = boundaries & 1 == 1 && isInTaskCode && reading.isBlocked
        let previous = lastLook
        lastLook = Look(
            times: times, onCore: reading.onCore, wall: now, boundaries: boundaries, wasAsleepInTask: isAsleepInTask)
        guard isAsleepInTask else { return .notBlocked }
        guard let previous, previous.times == times, previous.wasAsleepInTask, now > previous.wall else {
            return .asleepInTask
        }
        let share = Double(reading.onCore &- previous.onCore) / Double(now - previous.wall)
        return share < CollectionTuning.blockedLaneCoreShare ? .blocked : .notBlocked
    }
}

extension BatchLane: UserCodeWatch {
    @inlinable
    func userCodeBegins() {
        userCode.store(taskBoundaries.load(ordering: .relaxed) &<< 1 | 1, ordering: .relaxed)
    }

    @inlinable
    func userCodeReturned() {
        userCode.store(taskBoundaries.load(ordering: .relaxed) &<< 1, ordering: .relaxed)
    }
}
