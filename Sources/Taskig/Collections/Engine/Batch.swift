import Dispatch
import Foundation
import Synchronization

/// One collection wait (`awaitAll`, `awaitFirst`, …): runs its tasks on lanes, at most
/// `concurrency` at once, and releases its caller once the outcome is known.
///
/// A lane (``BatchLane``) is a loop on one thread that takes the next task in input order
/// (see ``BatchClaims``), runs it to completion in place when its queue allows, and records
/// its outcome in the ``BatchSink``.
///
/// Lanes start one per core. More start, up to `concurrency`, only beside lanes that wait: at
/// once when a lane is about to wait for a task's outcome (a callback, a network request), and,
/// for waits Taskig cannot see (a `sleep`, a synchronous read), when the batch looks at its
/// lanes (see ``look(after:)``): a lane whose thread is blocked in its task, and was on a
/// core for little of the time since the last look, gets one more beside it, once per task,
/// or at every look while no lane moves. Tasks that compute, however long, stay on one lane per core. The first
/// look comes a millisecond in, and looks come twice as far apart each time they start no
/// lane, and a millisecond apart again once they do. So tasks that compute stay on a few
/// threads, with few wake-ups of Taskig's timer queue, and tasks that block reach full
/// concurrency within a few milliseconds, the lanes doubling at each look.
///
/// The batch is a run (see ``Run``): the tasks' runs are its children. Ending it early (a
/// failure under fail-fast, a race that was won, a cancelled `Progress`, a `completions` loop
/// left early) cancels the runs still going, and cancelling it (its parent run) ends it.
///
/// The batch is the storage of a ``BatchState``, which decides what happens once per lane or
/// once per batch (admitting a lane, a thread taking one up or leaving, a lane's end, the
/// batch's early end) and says what to do; the batch does it outside the state's lock. What
/// happens once per task stays lock-free: claims go through ``BatchClaims``, each lane writes
/// only its own counters, and the sink synchronizes its own outcomes. The tasks never change
/// while lanes read them.
@usableFromInline
final class Batch<Work: LaneWork, Sink: BatchSink>: Sendable where Sink.Outcome == Work.Outcome {
    /// Read by lanes on other threads: running a task's work away from the caller is what a
    /// collection wait is for, as `action(completion:)` may run on the task's queue. Taken
    /// out by the caller once the batch finished with every task settled (see
    /// ``takeTasksOnceSettled()``), so that the tasks are freed on the caller's thread, not
    /// by a lane or a timer that lets go of the batch later. A batch that ended early keeps
    /// them until it is freed, since lanes may still be running some of them.
    @usableFromInline
    nonisolated(unsafe) var tasks: [Work.Element]
    /// How many tasks there are; read where `tasks` may be emptied meanwhile.
    @usableFromInline
    let taskCount: Int
    @usableFromInline
    let concurrency: Int
    @usableFromInline
    let sink: Sink
    /// The batch's run, when something can cancel it; the parent of the tasks' runs.
    @usableFromInline
    let run: Run?
    /// Released once the batch is over: every task settled, or it ended early.
    @usableFromInline
    let finished = CompletionCell<Void>()
    @usableFromInline
    let roster: LockedState<BatchState>
    @usableFromInline
    let claims: BatchClaims
    /// Where the lanes the batch starts run; set once by ``start(lanesOn:callerMayRunALane:)``.
    @usableFromInline
    let placement = LockedState(LanePlacement.workers(mayQueue: true))
    /// ``runLane(_:)``, as compiled where the batch was made, where the task and outcome types
    /// are concrete. Lanes started from inside Taskig (by a look, which runs on Taskig's timer
    /// queue) would otherwise run a copy compiled for any type, which looks up generic types
    /// for every task.
    @usableFromInline
    let laneLoop: @Sendable (Batch, BatchLane) -> Void
    /// Where the batch reports the tasks that settle, when its caller passed a `Progress`.
    @usableFromInline
    let progress: BatchProgress?

    /// Where the lanes a batch starts run.
    @usableFromInline
    enum LanePlacement: Sendable {
        /// On Taskig's workers; past the pool's limit they wait for a thread when `mayQueue`,
        /// or are not started (a nested wait, whose caller runs a lane itself).
        case workers(mayQueue: Bool)
        /// On the queue the caller named, of the given kind.
        case queue(DispatchQueue, QueueAffinity.Kind)
        /// Nowhere: the caller runs every task itself.
        case callerOnly
    }

    @inlinable
    init(_: Work.Type, tasks: [Work.Element], concurrency: Int, sink: Sink, progress: Progress? = nil) {
        self.tasks = tasks
        taskCount = tasks.count
        self.concurrency = concurrency
        roster = LockedState(BatchState(taskCount: tasks.count, concurrency: concurrency))
        claims = BatchClaims(taskCount: tasks.count, roster: roster)
        self.sink = sink
        self.progress = progress.map(BatchProgress.init)
        let parent = CurrentRun.run
        let endsEarly = sink.mayEndEarly || progress != nil
        self.run =
            endsEarly || (parent?.isCancellable ?? false) ? Run(parent: parent, cancellable: endsEarly) : nil
        self.laneLoop = { batch, lane in batch.runLane(lane) }
    }

    /// Runs the tasks and blocks until the batch is over. On the main thread the main queue
    /// keeps running meanwhile.
    @inlinable
    func runAndWait(lanesOn queue: DispatchQueue) {
        guard taskCount > 0 else { return }
        if let callerLane = start(lanesOn: queue, callerMayRunALane: true) {
            laneLoop(self, callerLane)
        }
        _ = BlockingWait.value(of: finished)
        _ = takeTasksOnceSettled()
        close()
    }

    /// Starts the lanes and returns the lane the caller runs itself, if any: every task,
    /// one after the other, when the caller must run them in place (see ``placement(lanesOn:tasks:mayEndEarly:)``);
    /// one lane beside the others where that helps, when `callerMayRunALane`; and one lane in
    /// any case when the caller is a worker itself (a nested wait), whose other lanes start
    /// only while the pool has a thread for them: then only the caller's lane is sure to run.
    @inlinable
    func start(lanesOn queue: DispatchQueue, callerMayRunALane: Bool) -> BatchLane? {
        if sink.endsOnCancellation, let run {
            run.onCancel { self.end(cancelled: true) }
        }
        // `progress.cancel()` cancels the batch's run, which ends the batch (every sink that is
        // given a progress ends on cancellation). The progress may keep that handler after the
        // wait, when it was cancelled: it then holds only the run, which drops its handlers
        // once closed; nothing holds the batch weakly, which would slow every count of its
        // references.
        progress?.begin(taskCount: taskCount, countSettled: { self.settledCount }, cancel: { [run] in run?.cancel() })
        let (lanePlacement, callerRunsLane) = Self.placement(lanesOn: queue, tasks: tasks, mayEndEarly: mayEndEarly)
        placement.withLock { $0 = lanePlacement }
        let firstLanes = min(concurrency, taskCount, ActiveProcessors.count)
        switch lanePlacement {
        case .callerOnly:
            return admitLane(runByCaller: true)
        case .queue:
            // One lane each: a lane that finds nothing to take ends, and blocked lanes on a
            // queue the caller named are for that queue to schedule.
            startLanes(min(concurrency, taskCount))
            return nil
        case .workers(let mayQueue):
            let callerLane =
                callerRunsLane && (callerMayRunALane || !mayQueue) ? admitLane(runByCaller: true) : nil
            startLanes(firstLanes - (callerLane == nil ? 0 : 1))
            if concurrency > firstLanes && taskCount > firstLanes {
                lookAgain(after: CollectionTuning.firstLaneLook)
            }
            return callerLane
        }
    }

    /// Ends the caller's part once it has what it waited for: the progress gets its final
    /// count, and the run drops its handlers and its link to the caller's run; lanes still
    /// running (the batch ended early) see it as cancelled.
    @inlinable
    func close() {
        progress?.finish()
        run?.close()
    }

    /// How many tasks settled so far: each lane counts its own (see ``BatchLane``).
    @usableFromInline
    var settledCount: Int {
        roster.withLock { state in
            state.lanes.reduce(state.settledByEndedLanes) { $0 + $1.settledCount }
        }
    }

    /// Where the lanes run, and whether the caller runs one itself.
    ///
    /// The caller runs every task itself, in input order, when the lanes' queue is a serial
    /// queue it holds, or when some task may only run on the caller: its work is bound for a
    /// serial queue the caller holds (see ``RunPlacement/of(_:wait:)``). Otherwise it runs one lane when it is a worker (a nested wait: then nesting never needs
    /// more threads) or when nothing can end the batch early, since it waits for every task
    /// anyway; it never runs lanes on the main thread, where the work could tell where it
    /// runs. Tasks bound for a queue the caller holds reach it through that queue's hand-off
    /// while it waits (see ``QueueHandOff``).
    @inlinable
    static func placement(
        lanesOn queue: DispatchQueue, tasks: [Work.Element], mayEndEarly: Bool
    ) -> (LanePlacement, callerRunsLane: Bool) {
        let kind = QueueAffinity.kind(of: queue)
        if kind != .globalConcurrent {
            return QueueAffinity.isCurrent(queue, kind: kind) ? (.callerOnly, true) : (.queue(queue, kind), false)
        }
        if MainThread.isCurrent { return (.workers(mayQueue: true), false) }
        if someTaskRunsOnlyOnTheCaller(tasks) { return (.callerOnly, true) }
        if WorkerThread.isCurrent { return (.workers(mayQueue: false), true) }
        return (.workers(mayQueue: true), !mayEndEarly)
    }

    /// Whether something can end the batch before every task settled: its sink (a failure
    /// under fail-fast, a race won, a `completions` loop left early), a `Progress`, or the
    /// cancellation of the run the wait is part of. Then the batch has a run that can be
    /// cancelled.
    @inlinable
    var mayEndEarly: Bool {
        run?.isCancellable ?? false
    }

    /// Whether the work of one of `tasks` is bound for a serial queue the caller holds. Only a
    /// caller that holds a queue Taskig knows asks the tasks.
    @inlinable
    static func someTaskRunsOnlyOnTheCaller(_ tasks: [Work.Element]) -> Bool {
        guard QueueAffinity.heldHandOff != nil else { return false }
        return tasks.contains { task in
            guard let queue = Work.workQueue(of: task), !queue.isGlobal else { return false }
            return RunPlacement.of(queue, wait: .untilDone) == .inPlace
        }
    }

    /// Adds a lane to the roster, unless the batch has `concurrency` lanes, no task is left
    /// to start, or it is over. A lane the caller runs has started; any other starts when
    /// its thread takes it up (see ``runLane(_:)``).
    @inlinable
    func admitLane(runByCaller: Bool = false) -> BatchLane? {
        let threadTimes = runByCaller ? ThreadTimes.ofCurrentThread() : nil
        // A lane is made only once the roster takes it: a thread that leaves a task pending
        // asks for one every time, and finds the roster full whenever `concurrency` is reached.
        return roster.withLock { state in
            let hasTasksToStart = claims.hasTasksToStart
            guard state.admitsALane(hasTasksToStart: hasTasksToStart) else { return nil }
            let lane = BatchLane(hasStarted: runByCaller)
            lane.threadTimes = threadTimes
            return state.admit(lane, hasTasksToStart: hasTasksToStart) ? lane : nil
        }
    }

    /// Starts up to `count` more lanes where ``placement`` says.
    @inlinable
    func startLanes(_ count: Int) {
        guard count > 0 else { return }
        for _ in 0..<count {
            guard let lane = admitLane() else { return }
            guard send(lane) else {
                removeLane(lane)
                return
            }
        }
    }

    /// Sends `lane`, on the roster, to run where the lanes run; returns `false` when it was
    /// not taken: the pool turned it down, or the caller runs every task.
    @inlinable
    func send(_ lane: BatchLane) -> Bool {
        let job: @Sendable () -> Void = { self.laneLoop(self, lane) }
        switch placement.withLock({ $0 }) {
        case .workers(mayQueue: true):
            WorkerPool.shared.submit(job)
        case .workers(mayQueue: false):
            return WorkerPool.shared.trySubmit(job)
        case .queue(let queue, let kind):
            RunPlacement.onQueue(queue, kind).send(job)
        case .callerOnly:
            return false
        }
        return true
    }

    /// Whether a lane the batch starts is sure to run: on workers that may queue it, or on a
    /// queue; not when the caller runs every task, nor when the pool may turn a lane down.
    @inlinable
    var lanesAlwaysStart: Bool {
        switch placement.withLock({ $0 }) {
        case .workers(mayQueue: true), .queue: return true
        case .workers(mayQueue: false), .callerOnly: return false
        }
    }

    @inlinable
    func removeLane(_ lane: BatchLane) {
        roster.withLock { $0.withdraw(lane) }
    }

    /// Runs `lane` until no task is left for it or the batch is over; a lane let go before its
    /// thread took it up (see ``endLane(_:)``) does nothing. A task left pending on a lane
    /// (see ``leavePending(on:)``) moves the thread on to the lane after it.
    @inlinable
    func runLane(_ lane: BatchLane) {
        let threadTimes = ThreadTimes.ofCurrentThread()
        let isOnRoster = roster.withLock { state in
            lane.threadTimes = threadTimes
            return state.threadTakesUp(lane)
        }
        guard isOnRoster else { return }
        // One frame for the lanes' whole life; between tasks only its task changes.
        var frame = RunFrame(parent: run, task: nil)
        // Ended only once the tasks' buffer is let go of: ending the last lane releases the
        // caller, which then frees the tasks.
        let last = CurrentRun.whileRunning(&frame) { frame in
            tasks.withUnsafeBufferPointer { tasks -> TaskStep in
                var lane = lane
                var step = TaskStep.settled
                while true {
                    runNextTask(of: tasks, on: lane, frame: frame, mayLeavePending: true, step: &step)
                    switch step {
                    case .settled: continue
                    case .movedOn(let successor):
                        lane = successor
                        step = .settled
                    case .leftLast, .noneLeft: return step
                    }
                }
            }
        }
        if roster.withLock({ $0.threadLeaves() }) { startLanes(1) }
        switch last {
        case .noneLeft(let lane):
            endLane(lane)
        case .leftLast(let pending):
            settleWhenComplete(pending)
        case .settled, .movedOn:
            preconditionFailure("BUG IN TASKIG: a lane stopped with tasks left")
        }
    }

    /// Runs the next task on `lane`, the caller's, in place (the caller runs the tasks of a
    /// `completions` loop one at a time when it must run them itself); returns whether there
    /// was one. The lane ends once there is none.
    @inlinable
    func runNextTaskInPlace(on lane: BatchLane) -> Bool {
        var frame = RunFrame(parent: run, task: nil)
        let step = CurrentRun.whileRunning(&frame) { frame in
            tasks.withUnsafeBufferPointer { tasks in
                var step = TaskStep.settled
                runNextTask(of: tasks, on: lane, frame: frame, mayLeavePending: false, step: &step)
                return step
            }
        }
        switch step {
        case .noneLeft:
            endLane(lane)
            return false
        case .settled, .movedOn, .leftLast:
            return true
        }
    }

    /// What running one task on a lane came to.
    @usableFromInline
    enum TaskStep {
        /// The task settled; the lane goes on.
        case settled
        /// The task's outcome is still to come, and its lane waits for it without a thread,
        /// while the thread goes on with this lane.
        case movedOn(BatchLane)
        /// The same with no task left to start: the thread is free once it has let go of the
        /// tasks, and then hears of the outcome (see ``settleWhenComplete(_:)``).
        case leftLast(PendingTask)
        /// No task was left to start, or the batch is over: this lane ends.
        case noneLeft(BatchLane)
    }

    /// A task whose outcome is still to come, on the lane it keeps.
    @usableFromInline
    struct PendingTask {
        @usableFromInline
        let cell: CompletionCell<Work.Outcome>
        @usableFromInline
        let index: Int
        @usableFromInline
        let lane: BatchLane

        @inlinable
        init(cell: CompletionCell<Work.Outcome>, index: Int, lane: BatchLane) {
            self.cell = cell
            self.index = index
            self.lane = lane
        }
    }

    /// Claims the next task, runs it on `lane` and records its outcome; or leaves it pending,
    /// when `mayLeavePending`, as ``leavePending(on:)`` allows. Sets `step`, which is
    /// `.settled` on entry, when the lane does not go on as it was: the lane's loop keeps one
    /// step for all its tasks, so that a task that settles neither writes nor destroys one.
    @inlinable
    @inline(__always)
    func runNextTask(
        of tasks: UnsafeBufferPointer<Work.Element>, on lane: BatchLane, frame: UnsafeMutablePointer<RunFrame>,
        mayLeavePending: Bool, step: inout TaskStep
    ) {
        guard let index = claims.nextTask(for: lane) else {
            step = .noneLeft(lane)
            return
        }
        lane.enterTask()
        // The lane's caller holds the batch: capturing it strongly would make both lanes write
        // its reference count for every task.
        let outcome = Work.perform(
            tasks.baseAddress! + index, parent: run, frame: frame,
            leavePending: { [unowned(unsafe) self] cell in
                guard mayLeavePending, let successor = self.leavePending(on: lane) else { return false }
                lane.isPending.store(true, ordering: .relaxed)
                let pending = PendingTask(cell: cell, index: index, lane: lane)
                if let successor {
                    self.settleWhenComplete(pending)
                    step = .movedOn(successor)
                } else {
                    step = .leftLast(pending)
                }
                return true
            },
            beforeBlocking: { [unowned(unsafe) self] in self.startLanes(1) })
        guard let outcome else { return }
        lane.leaveTask()
        if sink.record(outcome, at: index) {
            end(cancelled: false)
            step = .noneLeft(lane)
            return
        }
        progress?.taskSettled()
    }

    /// Whether the thread of `lane`, whose task's outcome is still to come, may leave it
    /// pending (DESIGN §3, rule 4): the lane keeps counting toward `concurrency` without a
    /// thread until the outcome comes. Returns the lane the thread goes on with; `.some(nil)`
    /// when it has none (no task is left to start, or `concurrency` lanes are in use) and
    /// goes: a slot that comes free later starts a lane of its own. Only where the lanes a
    /// batch starts are sure to run is the thread free to go with tasks left; otherwise
    /// (`nil`) it waits for this outcome.
    @inlinable
    func leavePending(on lane: BatchLane) -> BatchLane?? {
        let successor = admitLane(runByCaller: true)
        if successor == nil && claims.hasTasksToStart && !lanesAlwaysStart { return nil }
        if let successor { claims.takeOver(claimedBy: lane, for: successor) }
        return .some(successor)
    }

    /// Records the pending task's outcome once it comes.
    @inlinable
    func settleWhenComplete(_ pending: PendingTask) {
        pending.cell.whenComplete { outcome in self.settlePending(outcome, at: pending.index, on: pending.lane) }
    }

    /// Records the outcome of a task left pending on `lane`, which then ends; the lane it
    /// freed may start again where tasks are left.
    @inlinable
    func settlePending(_ outcome: Work.Outcome, at index: Int, on lane: BatchLane) {
        lane.leaveTask()
        if sink.record(outcome, at: index) {
            end(cancelled: false)
        } else {
            progress?.taskSettled()
        }
        // A lane whose thread left with no lane to go on with may still hold tasks it claimed
        // and nobody has started: it runs them now, or no lane would, and the batch would never
        // end. Only a lane whose batch's lanes always start leaves with such tasks.
        if lane.firstClaimedTask != nil {
            lane.isPending.store(false, ordering: .relaxed)
            if !send(lane) { runLane(lane) }
            return
        }
        endLane(lane)
    }

    /// Takes `lane` off the roster and adds what it settled to the batch's count (see
    /// ``BatchState/end(_:settled:)``): the last lane to end once every task has settled
    /// releases the caller, and from then on no lane reads the tasks (see
    /// ``takeTasksOnceSettled()``); a lane whose slot no running thread will take starts
    /// another.
    @inlinable
    func endLane(_ lane: BatchLane) {
        let settled = lane.settledCount
        switch roster.withLock({ $0.end(lane, settled: settled) }) {
        case .none: break
        case .startLane: startLanes(1)
        case .releaseCaller: finished.complete(with: ())
        }
    }

    /// The tasks, taken out of the batch once it finished with every task settled and no
    /// lane left to read them; none when it ended early, while lanes may still run some.
    ///
    /// The caller calls it after its wait and drops what it gets, outside the roster's lock:
    /// so the tasks are freed on the caller's thread (when the batch held the only copy of
    /// them, made from a sequence that is not an array), or when the caller drops its own,
    /// rather than on a lane's thread at the same time as the caller's next work.
    @inlinable
    func takeTasksOnceSettled() -> [Work.Element] {
        roster.withLock { state in
            guard state.mayLetGoOfTasks else { return [] }
            defer { tasks = [] }
            return tasks
        }
    }

    /// Ends the batch before every task settled: no task starts any more, the runs still
    /// going are cancelled, and the caller is released.
    @inlinable
    func end(cancelled: Bool) {
        guard roster.withLock({ $0.endEarly() }) else { return }
        claims.isOver.store(true, ordering: .relaxed)
        if cancelled { sink.recordCancellation() }
        // Before the caller is released: once it is, it closes the run.
        run?.cancel()
        finished.complete(with: ())
    }

    /// Looks at the lanes in `seconds`, on Taskig's timer queue (see ``look(after:)``).
    @usableFromInline
    func lookAgain(after seconds: Double) {
        Scheduling.after(seconds) { self.look(after: seconds) }
    }

    /// Starts lanes after a look at the lanes, and looks again: a millisecond later when it
    /// started some, twice as late as `last` otherwise; no more once every task has started or
    /// the batch is over.
    ///
    /// Each lane whose thread is blocked in a task (see
    /// ``BatchLane/isBlockedInATask(now:times:)``) gets one more lane beside it, once per task:
    /// its task waits, and another task can use its core meanwhile. While no lane on a thread
    /// moves, blocked lanes get one more at every look, so that lanes of tasks that block
    /// double at each look; a task that blocks for long beside tasks that compute gets one
    /// lane. Lanes whose tasks compute get none, however long their tasks, even when other
    /// threads keep them waiting for a core: more lanes than cores would only take turns on
    /// them. Lanes left pending hold no thread, and are not looked at; nor are any once the
    /// batch has `concurrency` lanes.
    @usableFromInline
    func look(after last: Double) {
        guard finished.completedValue == nil, claims.hasTasksToStart else { return }
        let lanesOnThreads = roster.withLock { state in
            state.lanes.count < concurrency
                ? state.lanes.compactMap { lane in
                    lane.isPending.load(ordering: .relaxed) ? nil : lane.threadTimes.map { (lane, $0) }
                } : []
        }
        let now = DispatchTime.now().uptimeNanoseconds
        let blocked = lanesOnThreads.compactMap { lane, times in
            lane.isBlockedInATask(now: now, times: times) ? lane : nil
        }
        let helped = blocked.count == lanesOnThreads.count ? blocked : blocked.filter { !$0.wasHelpedInThisTask }
        for lane in helped { lane.noteHelped() }
        let wanted = helped.count
        startLanes(wanted)
        lookAgain(
            after: wanted > 0
                ? CollectionTuning.firstLaneLook : min(2 * last, CollectionTuning.longestTimeBetweenLaneLooks))
    }
}

/// Checks a collection wait's `concurrency` argument.
@usableFromInline
func checkConcurrency(_ concurrency: Int, of operation: String) {
    requireCorrectUse(
        concurrency >= 1,
        "\(operation)(concurrency: \(concurrency)): concurrency is how many tasks may run at once and must be at least 1"
    )
}
