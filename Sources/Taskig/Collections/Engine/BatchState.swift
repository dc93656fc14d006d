/// What the lanes of one collection wait decide together, as a plain value: which lanes are on
/// the roster, how many threads run them, how many tasks the lanes that ended settled, and
/// whether the batch is over. ``Batch`` keeps it behind its lock, calls one method per event,
/// and does what the method returns once it has let go of the lock.
///
/// Claiming a task and recording its outcome stay outside, lock-free (see ``BatchClaims`` and
/// ``BatchSink``): they happen once per task, and a lock there would have every lane meet on
/// it; what happens here happens once per lane, or once per batch.
///
/// Invariants, checked as preconditions (the first in debug builds only): no lane is on the
/// roster twice; at most `concurrency` lanes are; `threads` never exceeds the lanes on the
/// roster, nor falls below zero; the ended lanes never settled more than `taskCount` tasks;
/// the caller is released once.
@usableFromInline
struct BatchState {
    @usableFromInline
    let taskCount: Int
    @usableFromInline
    let concurrency: Int
    /// The lanes that run, that wait for a thread, or whose task is pending.
    @usableFromInline
    private(set) var lanes: [BatchLane] = []
    /// How many threads run lanes now. A slot that a pending task frees when it settles
    /// starts a lane only when no thread runs one: a running lane takes the slot itself, and
    /// more lanes would only take more of the pool's threads.
    @usableFromInline
    private(set) var threads = 0
    /// How many tasks the lanes that ended settled.
    @usableFromInline
    private(set) var settledByEndedLanes = 0
    /// Whether the batch ended before every task settled: no lane is admitted any more.
    @usableFromInline
    private(set) var isOver = false
    /// Whether the caller was released, by the batch's end or because every task settled.
    @usableFromInline
    private(set) var hasReleasedCaller = false

    @inlinable
    init(taskCount: Int, concurrency: Int) {
        precondition(
            taskCount >= 0 && concurrency >= 1,
            "BUG IN TASKIG: a batch of \(taskCount) tasks at concurrency \(concurrency)")
        self.taskCount = taskCount
        self.concurrency = concurrency
    }

    /// Whether the roster takes one more lane: it is not full, a task is left to start, and
    /// the batch is not over.
    @inlinable
    func admitsALane(hasTasksToStart: Bool) -> Bool {
        lanes.count < concurrency && hasTasksToStart && !isOver
    }

    /// Puts `lane` on the roster; `false` when it takes no more lanes (see
    /// ``admitsALane(hasTasksToStart:)``).
    @inlinable
    mutating func admit(_ lane: BatchLane, hasTasksToStart: Bool) -> Bool {
        // A lane is made just before it is admitted: only a debug build looks through the roster.
        assert(!isOnRoster(lane), "BUG IN TASKIG: a lane admitted twice")
        guard admitsALane(hasTasksToStart: hasTasksToStart) else { return false }
        lanes.append(lane)
        return true
    }

    /// Takes `lane`, which nothing took up, off the roster: the pool turned it down.
    @inlinable
    mutating func withdraw(_ lane: BatchLane) {
        precondition(!lane.hasStarted, "BUG IN TASKIG: a lane withdrawn after it started")
        lanes.removeAll { $0 === lane }
    }

    /// A thread takes `lane` up; `false` when the lane was let go before (every task settled
    /// while it waited for a thread), and the thread must leave it.
    @inlinable
    mutating func threadTakesUp(_ lane: BatchLane) -> Bool {
        lane.hasStarted = true
        guard isOnRoster(lane) else { return false }
        threads += 1
        precondition(threads <= lanes.count, "BUG IN TASKIG: more threads than lanes")
        return true
    }

    /// A thread stops running lanes: it ran out of tasks, or left its last one pending.
    /// Returns whether to start a lane, for a slot that came free while this thread still ran
    /// and found no other thread to take it.
    @inlinable
    mutating func threadLeaves() -> Bool {
        precondition(threads > 0, "BUG IN TASKIG: a thread left lanes it never took up")
        threads -= 1
        return !isOver && threads == 0 && lanes.count < concurrency
    }

    /// What the batch does once a lane has ended.
    @usableFromInline
    enum LaneEndAction: Equatable {
        /// Nothing more.
        case none
        /// Start a lane in the slot this one freed: no thread runs a lane to take it.
        case startLane
        /// Every task has settled and no lane is left: the caller can go.
        case releaseCaller
    }

    /// Takes `lane` off the roster and counts the `settled` tasks it settled. Once every task
    /// has settled, lanes that no thread has taken up yet are let go rather than waited for
    /// (a worker may be long in coming, past the pool's limit).
    @inlinable
    mutating func end(_ lane: BatchLane, settled: Int) -> LaneEndAction {
        guard let position = lanes.firstIndex(where: { $0 === lane }) else {
            preconditionFailure("BUG IN TASKIG: a lane ended twice")
        }
        lanes.remove(at: position)
        settledByEndedLanes += settled
        precondition(settledByEndedLanes <= taskCount, "BUG IN TASKIG: more tasks settled than the batch has")
        guard settledByEndedLanes == taskCount else {
            return !isOver && threads == 0 ? .startLane : .none
        }
        lanes.removeAll { !$0.hasStarted }
        guard lanes.isEmpty, !hasReleasedCaller else { return .none }
        hasReleasedCaller = true
        return .releaseCaller
    }

    /// The batch ends before every task settled: a failure under fail-fast, a race won, a
    /// cancellation. `true` the first time, before the caller was released: then the runs
    /// still going must be cancelled and the caller released.
    @inlinable
    mutating func endEarly() -> Bool {
        guard !isOver, !hasReleasedCaller else { return false }
        isOver = true
        hasReleasedCaller = true
        return true
    }

    /// Whether every task settled and no lane is left to read the tasks: then they can go.
    @inlinable
    var mayLetGoOfTasks: Bool {
        settledByEndedLanes == taskCount && lanes.isEmpty
    }

    @inlinable
    func isOnRoster(_ lane: BatchLane) -> Bool {
        lanes.contains { $0 === lane }
    }
}
