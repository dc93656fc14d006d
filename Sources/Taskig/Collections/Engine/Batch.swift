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
/// A race starts every lane at once, up to `concurrency` (see ``BatchSink/isRace``). Other
/// batches start one lane per core. More start, up to `concurrency`, only beside lanes that
/// wait: at once when a lane is about to wait for a task's outcome (a callback, a network
/// request), and, for waits Taskig cannot see (a `sleep`, a synchronous read), when the batch
/// looks at its lanes (see ``look(after:looks:)``): a lane whose thread is blocked in its task, and
/// was on a core for little of the time since the last look, gets one more beside it, once per
/// task, or at every look while no lane moves. Tasks that compute, however long, stay on one
/// lane per core. The first look comes a millisecond in, and looks come twice as far apart each
/// time they start no lane, and a millisecond apart again once they do. So tasks that compute
/// stay on a few threads, with few wake-ups of Taskig's timer queue, and tasks that block reach
/// full concurrency within a few milliseconds, the lanes doubling at each look.
///
/// The batch is a run (see ``Run``): the tasks' runs are its children. Ending it early (a
/// failure under fail-fast, a race that was won, a cancelled `Progress`, a `completions` loop
/// left early) cancels the runs still going, and cancelling it (its parent run) ends it.
///
/// The batch is the storage of a ``BatchState``, which decides, under the roster's lock, what
/// happens once per lane or once per batch (admitting a lane, a thread taking one up or
/// leaving, a lane's end, a task dropped when it is cancelled for good, the batch's early end)
/// and says what to do; the batch does it outside the lock. What happens once per task stays
/// lock-free, where rows 2a, 10a and 12 measure it: claims go through ``BatchClaims``, each
/// lane writes only its own counters (see ``BatchLane``), and the sink synchronizes its own
/// outcomes. The looks pass what they saw from one to the next as a value (``LaneLooks``). The
/// tasks never change while lanes read them.
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
    /// Where the lanes the batch starts run, and whether its caller runs one itself: decided
    /// once, on the caller's thread, when the batch is made (see
    /// ``placement(lanesOn:tasks:mayEndEarly:isRace:)``).
    @usableFromInline
    let placement: RunPlacement
    @usableFromInline
    let callerRunsLane: Bool
    /// ``runLane(_:)``, as compiled where the batch was made, where the task and outcome types
    /// are concrete. Lanes started from inside Taskig (by a look, which runs on Taskig's timer
    /// queue) would otherwise run a copy compiled for any type, which looks up generic types
    /// for every task.
    @usableFromInline
    let laneLoop: @Sendable (Batch, BatchLane) -> Void
    /// Where the batch reports the tasks that settle, when its caller passed a `Progress`.
    @usableFromInline
    let progress: BatchProgress?
    /// Where the collection wait was called, and which it is, for the wait report.
    @usableFromInline
    let site: StaticCallSite
    @usableFromInline
    let operation: StaticString

    @inlinable
    init(
        _: Work.Type, tasks: [Work.Element], lanesOn queue: DispatchQueue, concurrency: Int, sink: Sink,
        progress: Progress? = nil, operation: StaticString, site: StaticCallSite
    ) {
        self.operation = operation
        self.site = site
        self.tasks = tasks
        taskCount = tasks.count
        self.concurrency = concurrency
        roster = LockedState(BatchState(taskCount: tasks.count, concurrency: concurrency))
        claims = BatchClaims(taskCount: tasks.count, roster: roster)
        self.sink = sink
        self.progress = progress.map(BatchProgress.init)
        let parent = CurrentRun.run
        let endsEarly = sink.mayEndEarly || progress != nil
        let run = endsEarly || (parent?.isCancellable ?? false) ? Run(parent: parent, cancellable: endsEarly) : nil
        self.run = run
        // Something can end the batch before every task settled exactly when its run can be
        // cancelled: its sink (a failure under fail-fast, a race won, a `completions` loop left
        // early), a `Progress`, or the cancellation of the run the wait is part of.
        (placement, callerRunsLane) = Self.placement(
            lanesOn: queue, tasks: tasks, mayEndEarly: run?.isCancellable ?? false, isRace: sink.isRace)
        self.laneLoop = { batch, lane in batch.runLane(lane) }
    }

    /// Runs the tasks and blocks until the batch is over. On the main thread the main queue
    /// keeps running meanwhile.
    @inlinable
    func runAndWait() {
        guard taskCount > 0 else { return }
        if let callerLane = start(callerMayRunALane: true) {
            laneLoop(self, callerLane)
        }
        let outcome = BlockingWait.outcome(of: finished) {
            WaitSubject(
                site: site, target: run, othersMayEndIt: sink.mayEndEarly,
                work: .collection(self, nextOutcomeOnly: false))
        }
        if case .deadlock(let deadlock) = outcome { end(deadlock: deadlock) }
        _ = takeTasksOnceSettled()
        close()
    }

    /// Starts the lanes and returns the lane the caller runs itself, if any: every task, one
    /// after the other, when the caller must run them in place (see ``placement``); one lane
    /// beside the others where that helps, when `callerMayRunALane`; and one lane in any case
    /// when the caller is a worker itself (a nested wait) whose other lanes start only while
    /// the pool has a thread for them: then only the caller's lane is sure to run.
    @inlinable
    func start(callerMayRunALane: Bool) -> BatchLane? {
        registerForReports()
        if Work.tasksCanBeCancelledForGood { TaskCancellationListeners.add(self) }
        if sink.endsOnCancellation, let run {
            run.onCancel { self.end(cancelled: true) }
        }
        // `progress.cancel()` cancels the batch's run, which ends the batch (every sink that is
        // given a progress ends on cancellation). The progress may keep that handler after the
        // wait, when it was cancelled: it then holds only the run, which drops its handlers
        // once closed; nothing holds the batch weakly, which would slow every count of its
        // references.
        progress?.begin(taskCount: taskCount, countSettled: { self.settledCount }, cancel: { [run] in run?.cancel() })
        let firstLanes = min(concurrency, taskCount, sink.isRace ? .max : ActiveProcessors.count)
        switch placement {
        case .inPlace:
            return admitLane(runByCaller: true)
        case .onQueue:
            // One lane each: a lane that finds nothing to take ends, and blocked lanes on a
            // queue the caller named are for that queue to schedule.
            startLanes(min(concurrency, taskCount))
            return nil
        case .onWorker, .onFreeWorkerOrInPlace:
            // Lanes the pool may turn down (a nested wait) leave only the caller's sure to run.
            let callerLane =
                callerRunsLane && (callerMayRunALane || !placement.alwaysSendsElsewhere)
                ? admitLane(runByCaller: true) : nil
            let wanted = firstLanes - (callerLane == nil ? 0 : 1)
            let started = startLanes(wanted)
            // The looks add lanes beside lanes that block, up to `concurrency`, and so also
            // the lanes a full pool turned down, once it has a thread for them.
            if concurrency > firstLanes && taskCount > firstLanes || started < wanted {
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
        if Work.tasksCanBeCancelledForGood { TaskCancellationListeners.remove(self) }
        unregisterFromReports()
    }

    /// How many tasks settled so far: each lane counts its own (see ``BatchLane``), but for a
    /// dropped task it still runs (see ``BatchState/droppedTasks``).
    @usableFromInline
    var settledCount: Int {
        roster.withLock { state in
            state.lanes.reduce(state.settledByEndedLanes + state.settledWithoutTheirLanes) { $0 + $1.lane.settledCount }
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
            let lane = BatchLane()
            let admitted = state.admit(
                lane, hasStarted: runByCaller, threadTimes: threadTimes, hasTasksToStart: hasTasksToStart)
            return admitted ? lane : nil
        }
    }

    /// Starts up to `count` more lanes where ``placement`` says; returns how many it started.
    @inlinable
    @discardableResult
    func startLanes(_ count: Int) -> Int {
        guard count > 0 else { return 0 }
        for started in 0..<count {
            guard let lane = admitLane() else { return started }
            guard send(lane) else {
                removeLane(lane)
                return started
            }
        }
        return count
    }

    @inlinable
    func removeLane(_ lane: BatchLane) {
        roster.withLock { $0.withdraw(lane) }
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

    /// How a lane's waits for its tasks show in the wait report and the cycle check.
    @inlinable
    var laneWaits: LaneWaits {
        LaneWaits(site: site, othersMayEndThem: sink.mayEndEarly)
    }
}

/// Checks a collection wait's `concurrency` argument.
@usableFromInline
func checkConcurrency(_ concurrency: Int, of operation: String) {
    requireCorrectUse(
        concurrency >= 1,
        "\(operation)(concurrency: \(concurrency)): "
            + "concurrency is how many tasks may run at once and must be at least 1"
    )
}
