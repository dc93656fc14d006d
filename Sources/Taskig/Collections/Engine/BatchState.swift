/// What the lanes of one collection wait decide together, as a plain value: which lanes are on
/// the roster and whether a thread has taken each up, how many threads run them, how many tasks
/// the lanes that ended settled, and whether the batch is over. ``Batch`` keeps it behind its
/// lock, calls one method per event, and does what the method returns once it has let go of
/// the lock.
///
/// Claiming a task and recording its outcome stay outside, lock-free (see ``BatchClaims`` and
/// ``BatchSink``): they happen once per task, and a lock there would have every lane meet on
/// it; what happens here happens once per lane, or once per batch.
///
/// A task cancelled for good while a lane runs it is settled without its lane (see
/// ``droppedTasks``), so the caller may be released while lanes still run such tasks, never
/// while one runs a task that has not settled.
///
/// Invariants, checked as preconditions (the first in debug builds only): no lane is on the
/// roster twice; at most `concurrency` lanes are; `threads` and the lanes that await a thread
/// never exceed the lanes on the roster, and `threads` never falls below zero; the ended lanes
/// never settled more than `taskCount` tasks; a lane's task is dropped at most once; the caller
/// is released once.
@usableFromInline
struct BatchState {
    @usableFromInline
    let taskCount: Int
    @usableFromInline
    let concurrency: Int
    /// The lanes that run, that wait for a thread, or whose task is pending.
    @usableFromInline
    private(set) var lanes: [Lane] = []
    /// How many threads run lanes now. A slot that a pending task frees when it settles
    /// starts a lane only when no thread runs one and none is on its way to one: a running
    /// lane takes the slot itself, and more lanes would only take more of the pool's threads.
    @usableFromInline
    private(set) var threads = 0
    /// How many lanes on the roster wait for a thread to take them up: sent to the pool or a
    /// queue, not started yet. A burst of pending tasks settling at once, on as many threads,
    /// would otherwise each find no thread running a lane, and each start one.
    @usableFromInline
    private(set) var lanesAwaitingThreads = 0
    /// How many tasks the lanes that ended settled.
    @usableFromInline
    private(set) var settledByEndedLanes = 0
    /// Whether the batch ended before every task settled: no lane is admitted any more.
    @usableFromInline
    private(set) var isOver = false
    /// Whether the caller was released, by the batch's end or because every task settled.
    @usableFromInline
    private(set) var hasReleasedCaller = false
    /// The tasks cancelled for good that the batch settled while their lanes still ran them:
    /// each lane drops the outcome its task gets, then counts the task itself.
    @usableFromInline
    private(set) var droppedTasks: [DroppedTask] = []

    /// A lane on the roster, and what the roster knows of it.
    @usableFromInline
    struct Lane {
        @usableFromInline
        let lane: BatchLane
        /// Whether a thread has begun running the lane: the caller's own lane from the start,
        /// any other once its thread takes it up.
        @usableFromInline
        var hasStarted: Bool
        /// How the thread running the lane spends its time, which the looks read; set with
        /// ``hasStarted`` (see ``Batch/look(after:looks:)``).
        @usableFromInline
        var threadTimes: ThreadTimes?

        @inlinable
        init(lane: BatchLane, hasStarted: Bool, threadTimes: ThreadTimes?) {
            self.lane = lane
            self.hasStarted = hasStarted
            self.threadTimes = threadTimes
        }
    }

    /// A task settled as cancelled while its lane still runs it.
    @usableFromInline
    struct DroppedTask {
        @usableFromInline
        let lane: BatchLane
        /// How many tasks the lane had settled before this one.
        @usableFromInline
        let settledBefore: Int
        /// Whether the cancellation is in the sink: until then the caller may not go.
        @usableFromInline
        var isRecorded = false
        /// Whether the lane has left the task, and so counts it among its own.
        @usableFromInline
        var hasLaneLeft = false

        @inlinable
        init(lane: BatchLane, settledBefore: Int) {
            self.lane = lane
            self.settledBefore = settledBefore
        }
    }

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
    /// ``admitsALane(hasTasksToStart:)``). A lane the caller runs itself has started, on the
    /// thread that `threadTimes` watches; any other starts when its thread takes it up.
    @inlinable
    mutating func admit(
        _ lane: BatchLane, hasStarted: Bool, threadTimes: ThreadTimes? = nil, hasTasksToStart: Bool
    ) -> Bool {
        // A lane is made just before it is admitted: only a debug build looks through the roster.
        assert(!isOnRoster(lane), "BUG IN TASKIG: a lane admitted twice")
        guard admitsALane(hasTasksToStart: hasTasksToStart) else { return false }
        lanes.append(Lane(lane: lane, hasStarted: hasStarted, threadTimes: threadTimes))
        if !hasStarted { lanesAwaitingThreads += 1 }
        return true
    }

    /// Takes `lane`, which nothing took up, off the roster: the pool turned it down.
    @inlinable
    mutating func withdraw(_ lane: BatchLane) {
        guard let position = position(of: lane) else {
            preconditionFailure("BUG IN TASKIG: withdrew a lane not on the roster")
        }
        precondition(!lanes[position].hasStarted, "BUG IN TASKIG: a lane withdrawn after it started")
        lanes.remove(at: position)
        lanesAwaitingThreads -= 1
    }

    /// A thread takes `lane` up, and runs it with its time watched by `threadTimes`; `false`
    /// when the lane was let go before (every task settled while it waited for a thread), and
    /// the thread must leave it.
    @inlinable
    mutating func threadTakesUp(_ lane: BatchLane, threadTimes: ThreadTimes? = nil) -> Bool {
        guard let position = position(of: lane) else { return false }
        if !lanes[position].hasStarted { lanesAwaitingThreads -= 1 }
        lanes[position].hasStarted = true
        lanes[position].threadTimes = threadTimes
        threads += 1
        precondition(threads + lanesAwaitingThreads <= lanes.count, "BUG IN TASKIG: more threads than lanes")
        return true
    }

    /// A thread stops running lanes: it ran out of tasks, or left its last one pending.
    /// Returns whether to start a lane, for a slot that came free while this thread still ran
    /// and found no other thread to take it.
    @inlinable
    mutating func threadLeaves() -> Bool {
        precondition(threads > 0, "BUG IN TASKIG: a thread left lanes it never took up")
        threads -= 1
        return !isOver && hasNoThreadForALane && lanes.count < concurrency
    }

    /// Whether no thread runs a lane, nor is on its way to one.
    @inlinable
    var hasNoThreadForALane: Bool {
        threads == 0 && lanesAwaitingThreads == 0
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
        guard let position = position(of: lane) else {
            preconditionFailure("BUG IN TASKIG: a lane ended twice")
        }
        lanes.remove(at: position)
        settledByEndedLanes += settled
        precondition(settledByEndedLanes <= taskCount, "BUG IN TASKIG: more tasks settled than the batch has")
        guard everyTaskSettled else {
            return !isOver && hasNoThreadForALane ? .startLane : .none
        }
        return releasesCallerOnceSettled() ? .releaseCaller : .none
    }

    /// Whether every task has settled: counted by the lanes that ended, and by the dropped tasks
    /// whose lanes still run them, with what those lanes settled before; none while the
    /// cancellation of a dropped task is still to be recorded.
    @inlinable
    var everyTaskSettled: Bool {
        var settled = settledByEndedLanes
        for dropped in droppedTasks {
            guard dropped.isRecorded else { return false }
            settled += dropped.settledBefore + 1
        }
        return settled == taskCount
    }

    /// Once every task has settled: lets go of the lanes no thread has taken up yet (a worker
    /// may be long in coming, past the pool's limit), and releases the caller when the lanes
    /// left only run dropped tasks. Returns whether it released the caller.
    @inlinable
    mutating func releasesCallerOnceSettled() -> Bool {
        lanes.removeAll { !$0.hasStarted }
        lanesAwaitingThreads = 0
        let lanesRunDroppedTasksOnly = lanes.allSatisfy { entry in droppedTasks.contains { $0.lane === entry.lane } }
        guard lanesRunDroppedTasksOnly, !hasReleasedCaller else { return false }
        hasReleasedCaller = true
        return true
    }

    /// The task `lane` runs was cancelled for good, and the batch settles it without the lane,
    /// which had settled `settledBefore` tasks.
    @inlinable
    mutating func drop(taskOf lane: BatchLane, settledBefore: Int) {
        precondition(isOnRoster(lane), "BUG IN TASKIG: dropped the task of a lane not on the roster")
        precondition(!droppedTasks.contains { $0.lane === lane }, "BUG IN TASKIG: dropped a lane's task twice")
        droppedTasks.append(DroppedTask(lane: lane, settledBefore: settledBefore))
    }

    /// The cancellation of `lane`'s dropped task is in the sink. Returns whether the caller can
    /// go now.
    @inlinable
    mutating func recordedDroppedTask(of lane: BatchLane) -> Bool {
        guard let position = droppedTasks.firstIndex(where: { $0.lane === lane }) else {
            preconditionFailure("BUG IN TASKIG: recorded a task that was not dropped")
        }
        droppedTasks[position].isRecorded = true
        if droppedTasks[position].hasLaneLeft { droppedTasks.remove(at: position) }
        return everyTaskSettled && releasesCallerOnceSettled()
    }

    /// `lane` has left its dropped task, which it counts among its own from now on.
    @inlinable
    mutating func laneLeftDroppedTask(_ lane: BatchLane) {
        guard let position = droppedTasks.firstIndex(where: { $0.lane === lane }) else {
            preconditionFailure("BUG IN TASKIG: a lane left a task that was not dropped")
        }
        droppedTasks[position].hasLaneLeft = true
        if droppedTasks[position].isRecorded { droppedTasks.remove(at: position) }
    }

    /// How many dropped tasks are settled while their lanes, which do not count them yet, run
    /// them.
    @inlinable
    var settledWithoutTheirLanes: Int {
        droppedTasks.count { $0.isRecorded }
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
        position(of: lane) != nil
    }

    @inlinable
    func position(of lane: BatchLane) -> Int? {
        lanes.firstIndex { $0.lane === lane }
    }
}
