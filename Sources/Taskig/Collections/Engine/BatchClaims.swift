import Dispatch
import Synchronization

/// How the lanes of one collection wait claim its tasks: the one place that hands out tasks,
/// lock-free on the way of every task.
///
/// Lanes claim tasks from the batch's counter one at a time while tasks take long, and in runs
/// of up to ``CollectionTuning/largestClaim`` while they end within microseconds, so that lanes
/// of trivial tasks rarely meet on the counter. A lane keeps the tasks it claimed and has not
/// started where other lanes can take them (see ``BatchLane/takeClaimed()``). A lane whose last
/// task took long, and any lane once the counter has no task left, first takes the tasks that
/// other lanes claimed and have not started: a task that blocks holds back the tasks its lane
/// claimed after it only until other lanes reach them, and tasks that take long start in
/// input order. No lane ends while another holds a task it has not started.
@usableFromInline
final class BatchClaims: Sendable {
    @usableFromInline
    let taskCount: Int
    /// The next task nobody has claimed.
    @usableFromInline
    let nextIndex = Atomic(0)
    /// How many lanes hold claimed tasks that nobody has started (see ``BatchLane/hold(_:)``),
    /// or are about to: a lane counts itself before it claims more than one task, so that a
    /// lane that finds the counter spent and no task held waits for its run to appear
    /// instead of ending (see ``takeTaskHeldByOthers()``).
    @usableFromInline
    let lanesHoldingTasks = Atomic(0)
    /// Set once the batch is over before every task settled (see ``BatchState/endEarly()``):
    /// no task is handed out any more. A copy of the state's flag that lanes read without its
    /// lock, once per task.
    @usableFromInline
    let isOver = Atomic(false)
    /// The batch's roster, whose lanes hold claimed tasks.
    @usableFromInline
    let roster: LockedState<BatchState>

    @inlinable
    init(taskCount: Int, roster: LockedState<BatchState>) {
        self.taskCount = taskCount
        self.roster = roster
    }

    /// Whether a task may be left that no lane has started: one not handed out yet, or one
    /// that a lane claimed and has not started.
    @inlinable
    var hasTasksToStart: Bool {
        nextIndex.load(ordering: .relaxed) < taskCount || lanesHoldingTasks.load(ordering: .relaxed) > 0
    }

    /// The index of the task `lane` runs next: one it claimed, one another lane claimed and
    /// has not started (when `lane` is claiming one task at a time, and when the batch has
    /// none left to hand out), or one claimed now; `nil` when no task is left to start, or the
    /// batch is over.
    @inlinable
    @inline(__always)
    func nextTask(for lane: BatchLane) -> Int? {
        guard !isOver.load(ordering: .relaxed) else { return nil }
        if let index = takeClaimed(from: lane) { return index }
        // Acquiring, as the claim below: a lane that finds the counter spent sees every lane
        // that counted itself in `lanesHoldingTasks` before its claim.
        guard nextIndex.load(ordering: .acquiring) < taskCount else {
            return takeTaskHeldByOthers()
        }
        let size = lane.nextClaimSize()
        if size == 1 && lanesHoldingTasks.load(ordering: .relaxed) > 0,
            let index = takeClaimedByOthers()
        {
            return index
        }
        if size > 1 { lanesHoldingTasks.add(1, ordering: .relaxed) }
        let first = nextIndex.wrappingAdd(size, ordering: .acquiringAndReleasing).oldValue
        if size > 1 {
            if first + 1 < taskCount {
                lane.hold(first + 1..<min(first + size, taskCount))
            } else {
                lanesHoldingTasks.subtract(1, ordering: .relaxed)
            }
        }
        return first < taskCount ? first : takeTaskHeldByOthers()
    }

    /// Takes the first of `lane`'s claimed tasks that nobody has started; the lane that takes a
    /// range's last task no longer counts its holder in `lanesHoldingTasks`.
    @inlinable
    @inline(__always)
    func takeClaimed(from lane: BatchLane) -> Int? {
        guard let (index, wasLast) = lane.takeClaimed() else { return nil }
        if wasLast { lanesHoldingTasks.subtract(1, ordering: .relaxed) }
        return index
    }

    /// Gives `successor`, a lane just admitted, the tasks `lane` claimed and has not started,
    /// so that none is lost when `lane` ends with its pending task.
    @inlinable
    func takeOver(claimedBy lane: BatchLane, for successor: BatchLane) {
        // Counted first, so that the count of lanes holding tasks never dips to zero meanwhile.
        lanesHoldingTasks.add(1, ordering: .relaxed)
        if let claimed = lane.takeAllClaimed() {
            successor.hold(claimed)
        }
        // Either `lane` no longer holds its range, or `successor` holds nothing.
        lanesHoldingTasks.subtract(1, ordering: .relaxed)
    }

    /// Once the batch has handed out every task: takes a task that another lane claimed and
    /// has not started; `nil` once no lane holds one, or the batch is over.
    @inlinable
    @inline(never)
    func takeTaskHeldByOthers() -> Int? {
        while true {
            if let index = takeClaimedByOthers() { return index }
            guard lanesHoldingTasks.load(ordering: .acquiring) > 0, !isOver.load(ordering: .relaxed) else { return nil }
            // A lane has claimed its last run and not shown it yet, or has taken its last
            // task and not said so yet: either is a few instructions away.
            Platform.yieldProcessor()
        }
    }

    /// Takes the first task, in input order, that a lane on the roster claimed and has not
    /// started.
    @inlinable
    @inline(never)
    func takeClaimedByOthers() -> Int? {
        roster.withLock { state in
            // Each pass that takes nothing found a task that another lane took meanwhile.
            while true {
                var holder: BatchLane?
                var first = Int.max
                for entry in state.lanes {
                    if let claimed = entry.lane.firstClaimedTask, claimed < first {
                        (holder, first) = (entry.lane, claimed)
                    }
                }
                guard let holder else { return nil }
                if let index = takeClaimed(from: holder) { return index }
            }
        }
    }
}
