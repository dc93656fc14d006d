import Dispatch
import Foundation
import Synchronization

/// Runs a collection of tasks with at most `lanes` of them at once and releases the caller
/// as soon as the outcome is known.
///
/// Each lane is a loop on its own thread: take a chunk of tasks, run each to completion on
/// that thread, report the outcomes. Lanes run on Taskig's worker threads (or on the queue
/// the caller names), never on Dispatch's global pool, so tasks that block do not starve it.
/// The caller runs a lane itself when it has to wait for every task anyway, when no worker
/// is free (nested collections under load), or when the lanes' queue is the serial queue it
/// is already on.
///
/// Outcomes that cannot end the run early (a success, when only a failure can) are kept by
/// the lane and reported together with its next chunk request, so a run of short tasks
/// takes the lock about once per chunk rather than once per task.
///
/// Everything that changes lives in ``coordination``, behind its lock, except the two atomic
/// flags.
@usableFromInline
final class BoundedConcurrentRun<Lane: LaneWork>: Sendable {
    @usableFromInline
    typealias Element = Lane.Element
    @usableFromInline
    typealias Outcome = Lane.Outcome

    /// Which outcomes can end the run before every task settled.
    @usableFromInline
    enum EarlyEnd: Sendable {
        /// None: the run ends when every task settled (`awaitAllResults`, a plain `awaitAll`).
        case never
        /// Those for which the closure returns `true` (a failure under fail-fast, a success
        /// for `awaitAny`).
        case when(@Sendable (Outcome) -> Bool)
        /// Any: the first outcome ends the run (`awaitFirst`).
        case always
    }

    /// What the run does with one outcome.
    @usableFromInline
    enum Verdict {
        case keepGoing
        case finishRun
    }

    /// The state lanes and the ramp share.
    @usableFromInline
    struct Coordination {
        @usableFromInline
        var machine: BoundedRunStateMachine
        /// Lane numbers not running: lanes start when a worker is free, and a lane that
        /// finds a chunk boundary with work left tries to start one more. A lane that finds
        /// nothing to take while the run goes on is idle again.
        @usableFromInline
        var idleLanes: [Int]
        /// How many tasks had settled when the ramp last looked.
        @usableFromInline
        var settledAtLastLook = 0
        /// How long the ramp waits before its next look.
        @usableFromInline
        var rampInterval: Double
        /// When the pool first refused the ramp a lane, if it has refused every look since.
        @usableFromInline
        var refusedSince: UInt64?
        /// The chunk size lanes have reached on quick chunks; back to 1 after a slow one.
        @usableFromInline
        var quickChunkLimit = 1

        /// Makes `lane` idle again when `next` stops it while the run goes on: tasks that other
        /// lanes hold now may be given back later, and the ramp may then start it again.
        @inlinable
        mutating func returnLaneIfItStops(_ lane: Int, next: BoundedRunStateMachine.NextAction) {
            if next == .stop && !machine.isFinished { idleLanes.append(lane) }
        }

        /// Whether the run is going on with tasks no lane has taken.
        @inlinable
        var hasTasksToHandOut: Bool { !machine.isFinished && machine.hasUnclaimedTasks }
        /// Whether the run is going on with tasks that more lanes could run: tasks no lane
        /// has taken, or tasks lanes hold and would give back if they got stuck.
        @inlinable
        var mayUseMoreLanes: Bool {
            !machine.isFinished && (machine.hasUnclaimedTasks || machine.lanesHoldTasksBeyondTheirCurrentOne)
        }
        /// Records an outcome and says whether the run is over; it writes the caller's
        /// results, so it runs under the lock (but see ``settleOutsideTheLock``).
        @usableFromInline
        let settle: (Outcome, Int) -> Verdict

        @inlinable
        init(
            machine: BoundedRunStateMachine, idleLanes: [Int], rampInterval: Double,
            settle: @escaping (Outcome, Int) -> Verdict
        ) {
            self.machine = machine
            self.idleLanes = idleLanes
            self.rampInterval = rampInterval
            self.settle = settle
        }
    }

    @usableFromInline
    let coordination: LockedState<Coordination>
    /// The tasks, never changed after `init`. Lanes on other threads read them, as running a
    /// task's work away from the caller is what a collection wait is for; the tasks
    /// themselves need not be `Sendable`, for the same reason `action(completion:)` runs
    /// on the task's queue.
    @usableFromInline
    nonisolated(unsafe) let tasks: [Element]
    /// `settle`, in a run where no outcome can end the run early: each lane records its
    /// outcomes itself, each into its own slots, and takes the lock only to report how many
    /// it settled, so two lanes rarely wait for each other at a chunk boundary. Not
    /// `Sendable` for the compiler, but the contract of `init`'s `settle` makes these calls
    /// safe.
    @usableFromInline
    nonisolated(unsafe) let settleOutsideTheLock: ((Outcome, Int) -> Verdict)?
    /// Set once the run is over; lanes read it before each task so they start nothing more.
    @usableFromInline
    let isFinished = Atomic(false)
    /// Set when a lane could not get a worker (see ``runLanesOnWorkers()``).
    @usableFromInline
    let lanesRecruitEachOther = Atomic(false)
    /// Set by the ramp when it finds the lanes stuck: from then on a lane gives back the
    /// tasks of its chunk it has not started after each task, so that a chunk taken when
    /// the tasks were quick does not keep blocking tasks from the lanes the ramp adds.
    @usableFromInline
    let lanesGiveBackChunks = Atomic(false)
    @usableFromInline
    let laneCount: Int
    @usableFromInline
    let earlyEnd: EarlyEnd
    @usableFromInline
    let finished = CompletionCell<Void>(work: { _ in })

    /// - Parameters:
    ///   - earlyEnd: the outcomes that can end the run early, so must be reported at once.
    ///   - settle: records an outcome and says whether the run is over. It is called at
    ///     most once per task and never after the run finished; under the lock, except in
    ///     a run whose `earlyEnd` is `.never`, where lanes call it at once, each for tasks
    ///     of its own, so it must touch nothing but the slot of the task it is given.
    @inlinable
    init(
        _ lane: Lane.Type,
        tasks: [Element],
        concurrency: Int,
        earlyEnd: EarlyEnd,
        settle: @escaping (Outcome, Int) -> Verdict
    ) {
        self.tasks = tasks
        self.laneCount = min(concurrency, tasks.count)
        self.earlyEnd = earlyEnd
        if case .never = earlyEnd { settleOutsideTheLock = settle } else { settleOutsideTheLock = nil }
        self.coordination = LockedState(
            Coordination(
                machine: BoundedRunStateMachine(count: tasks.count, lanes: laneCount),
                idleLanes: Array((0..<laneCount).reversed()),
                rampInterval: Self.rampInterval,
                settle: settle))
    }

    /// Runs the tasks and blocks until the run is finished. On the main thread the main
    /// queue keeps running meanwhile.
    @inlinable
    func runAndWait(lanesOn queue: DispatchQueue) {
        guard laneCount > 0 else { return }
        let kind = QueueAffinity.kind(of: queue)
        switch kind {
        case .globalConcurrent:
            runLanesOnWorkers()
        case .main, .other:
            if QueueAffinity.isCurrent(queue, kind: kind) {
                runLane(takeIdleLane()!, onWorkers: false)
            } else {
                // Each lane once: a lane that finds nothing to take is idle again at once.
                for _ in 0..<laneCount {
                    guard let lane = takeIdleLane() else { break }
                    queue.async { self.runLane(lane, onWorkers: false) }
                }
            }
            _ = BlockingWait.value(of: finished)
        }
    }

    /// How long the first lanes run before the ramp first looks at them.
    @usableFromInline
    static var rampInterval: Double { 0.000_02 }

    /// The longest the ramp waits between two looks.
    @usableFromInline
    static var longestRampInterval: Double { 0.01 }

    /// Starts the first lanes and lets the ramp add the others.
    ///
    /// When no task can end the run early, the caller runs the first lane itself: it has to
    /// wait for every task anyway. Up to one lane per core more starts at once on worker
    /// threads that are looking for work (see ``WorkerPool``), or, for runs of at least
    /// ``tasksWorthWakingAThread`` tasks, on a parked worker; a short run is often over before
    /// a parked thread could even wake up (microseconds on a small virtual machine).
    /// Otherwise the caller only waits, so that it can return the moment the outcome is
    /// known, and one lane per core starts at once.
    ///
    /// From then on the ramp (see ``lookAtLanes(admission:)``) adds lanes from
    /// ``LaneRampClock``'s thread, so this happens however long the first tasks take.
    ///
    /// A caller that is itself a worker (a nested wait) may be refused workers when the pool
    /// is at its limit; it then runs a lane itself, and from then on each lane tries to start
    /// another whenever it takes a new chunk.
    @inlinable
    func runLanesOnWorkers() {
        let admission: WorkerPool.Admission = WorkerThread.isCurrent ? .refusedAtLimit : .always
        var callerLane: Int?
        if case .never = earlyEnd { callerLane = takeIdleLane(onlyIfTasksAreUnclaimed: true) }
        if callerLane != nil {
            // Threads looking for work right now cost nothing to wake.
            let wakesAThread = tasks.count >= Self.tasksWorthWakingAThread
            let refused = startLanes(upTo: min(laneCount, ActiveProcessors.count) - 1) { job in
                WorkerPool.shared.trySubmitToSpinningThread(job)
                    || (wakesAThread && WorkerPool.shared.trySubmit(job, admission: .refusedAtLimit))
            }
            if let refused { returnIdleLane(refused) }
        } else if let refused = startLanes(
            upTo: min(laneCount, ActiveProcessors.count),
            { job in WorkerPool.shared.trySubmit(job, admission: admission) }
        ) {
            lanesRecruitEachOther.store(true, ordering: .relaxed)
            callerLane = refused
        }
        rampUp(admission: admission)
        if let callerLane {
            runLane(callerLane, onWorkers: true)
            awaitOtherLanesBriefly()
        }
        _ = BlockingWait.value(of: finished)
    }

    /// How long a caller whose own lane ran out of tasks keeps checking for the other lanes
    /// before it parks.
    @usableFromInline
    static var lanesJoinSpinNanoseconds: UInt64 { 50_000 }

    /// Checks whether the other lanes finished (see ``BriefSpin``). They are usually in the
    /// middle of a short chunk, which ends well before a parked thread could be woken again;
    /// when they are not, this gives up after ``lanesJoinSpinNanoseconds``.
    @inlinable
    func awaitOtherLanesBriefly() {
        _ = BriefSpin.until(atMost: Self.lanesJoinSpinNanoseconds) { finished.completedValue != nil }
    }

    /// From how many tasks a caller that runs a lane also wakes a parked worker for a second
    /// lane at once when none is looking for work. Waking one costs the caller about 5 µs
    /// here and the worker answers about 8 µs later, which only pays off for runs that are
    /// longer than that; once woken, the worker looks for work after each job, so the next
    /// wait that follows soon gets it for free.
    @usableFromInline
    static var tasksWorthWakingAThread: Int { 512 }

    /// Has ``LaneRampClock`` look at the lanes after ``rampInterval``, and then as long as
    /// lanes are left to start (see ``lookAtLanes(admission:)``).
    @inlinable
    func rampUp(admission: WorkerPool.Admission) {
        LaneRampClock.shared.watch(after: Self.rampInterval) { self.lookAtLanes(admission: admission) }
    }

    /// One look of the ramp, which adds lanes while tasks are left that no lane has taken:
    ///
    /// - when no task settled since the last look, or at any look before, the running lanes
    ///   are blocked or busy with long tasks, so every remaining lane starts, up to
    ///   `concurrency`;
    /// - otherwise the lanes are getting through short tasks, and lanes are only added up to
    ///   one per core, since more threads would only take turns on the same cores.
    ///
    /// The ramp looks again, less and less often, as long as tasks are left that more lanes
    /// could run, so a run whose tasks start blocking later still reaches its full
    /// concurrency. Tasks that lanes hold in their chunks count too: once stuck, the lanes
    /// give them back. Returns the seconds until the next look, or `nil` when there is no
    /// need for one.
    @inlinable
    func lookAtLanes(admission: WorkerPool.Admission) -> Double? {
        let now = DispatchTime.now().uptimeNanoseconds
        let (settledBefore, settled, runningLanes, refusedSince) = coordination.withLock { state in
            defer { state.settledAtLastLook = state.machine.settledCount }
            return (
                state.settledAtLastLook, state.machine.settledCount, laneCount - state.idleLanes.count,
                state.refusedSince
            )
        }
        // Lanes found stuck once have tasks that block: from then on the run wants every lane,
        // also when the tasks the stuck lanes give back only become free after a later look.
        let lanesWereStuck = settled == settledBefore || lanesGiveBackChunks.load(ordering: .relaxed)
        if lanesWereStuck { lanesGiveBackChunks.store(true, ordering: .relaxed) }
        let wantedLanes = lanesWereStuck ? laneCount : max(runningLanes, ActiveProcessors.count)
        // The clock must not wait for a thread: every other run's look queues behind this one.
        // So a top-level caller's lanes first use only the pool's spare threads, and are asked
        // for again at the next looks; threads finishing other work are usually back by then.
        // Refused for longer than a submitter would wait for one (see `WorkerPool`), they
        // get new threads.
        let atOnce: WorkerPool.Admission
        if admission == .refusedAtLimit {
            atOnce = .refusedAtLimit
        } else if let refusedSince, now - refusedSince > Self.longestRefusalNanoseconds {
            atOnce = .alwaysAtOnce
        } else {
            atOnce = .atOnceWithinSpareThreads
        }
        let refusedLane = startLanes(upTo: wantedLanes - runningLanes) { job in
            WorkerPool.shared.trySubmit(job, admission: atOnce)
        }
        let refused = refusedLane != nil
        if let refusedLane {
            returnIdleLane(refusedLane)
            lanesRecruitEachOther.store(true, ordering: .relaxed)
        }
        return coordination.withLock { state in
            state.refusedSince = refused ? (state.refusedSince ?? now) : nil
            // Looks go on while every lane runs too: a lane that finds nothing to take is
            // idle again, and tasks given back later may need it.
            guard state.mayUseMoreLanes else { return nil }
            // Threads refused now are mostly on their way back to the pool: ask again soon.
            if refused { return Self.retryAfterRefusal }
            state.rampInterval = min(state.rampInterval * 2, Self.longestRampInterval)
            return state.rampInterval
        }
    }

    /// When the ramp looks again after the pool refused it a lane.
    @usableFromInline
    static var retryAfterRefusal: Double { 0.000_2 }

    /// How long the pool may refuse a top-level caller's lanes before they get new threads.
    @usableFromInline
    static var longestRefusalNanoseconds: UInt64 { 2_000_000 }

    /// An idle lane, if any; with `onlyIfTasksAreUnclaimed`, only while the run has tasks to
    /// hand out, and with `runningFewerThan`, only while fewer lanes than that run.
    @inlinable
    func takeIdleLane(onlyIfTasksAreUnclaimed: Bool = false, runningFewerThan limit: Int = .max) -> Int? {
        coordination.withLock { state in
            guard !onlyIfTasksAreUnclaimed || state.hasTasksToHandOut, laneCount - state.idleLanes.count < limit else {
                return nil
            }
            return state.idleLanes.popLast()
        }
    }

    /// Starts up to `count` more lanes while the run has tasks to hand out, each through
    /// `submit`, which returns whether a thread took the lane's job. Stops at the first lane
    /// refused, and returns it, still taken, for the caller to run or give back.
    @inlinable
    func startLanes(
        upTo count: Int,
        runningFewerThan limit: Int = .max,
        _ submit: (@escaping WorkerPool.Job) -> Bool
    ) -> Int? {
        for _ in 0..<max(0, count) {
            guard let lane = takeIdleLane(onlyIfTasksAreUnclaimed: true, runningFewerThan: limit) else { break }
            guard submit({ self.runLane(lane, onWorkers: true) }) else { return lane }
        }
        return nil
    }

    @inlinable
    func returnIdleLane(_ lane: Int) {
        coordination.withLock { $0.idleLanes.append(lane) }
    }

    /// Starts up to `count` more lanes while the run has tasks to hand out and the pool
    /// threads for them: any thread, or with `lookingForWork` only one that is looking for
    /// work, up to one lane per core, so that a thread that came free after the run started
    /// joins it without a wake-up. Lanes the pool refuses stay idle, for the ramp.
    @inlinable
    func recruitLanes(upTo count: Int = 1, lookingForWork: Bool = false) {
        let refused =
            lookingForWork
            ? startLanes(upTo: count, runningFewerThan: ActiveProcessors.count) { job in
                WorkerPool.shared.trySubmitToSpinningThread(job)
            }
            : startLanes(upTo: count) { job in WorkerPool.shared.trySubmit(job, admission: .refusedAtLimit) }
        if let refused { returnIdleLane(refused) }
    }

    @inlinable
    func mayEndRun(_ outcome: Outcome) -> Bool {
        switch earlyEnd {
        case .never: return false
        case .when(let endsRun): return endsRun(outcome)
        case .always: return true
        }
    }

    /// How a lane's run of a chunk ended.
    @usableFromInline
    enum ChunkEnd {
        /// Every task ran, and their outcomes were kept.
        case ranAll
        /// The run was over before every task started; what the chunk did no longer matters.
        case runIsOver
        /// The task at `index` had an outcome that may end the run; the ones before it were kept.
        case stoppedAt(index: Int, outcome: Outcome)
        /// The tasks up to and including `index` ran and were kept; the lane gives back the rest.
        case givingBackAfter(index: Int)
    }

    /// Runs the tasks of `chunk` in order on this thread, keeping the outcomes that cannot
    /// end the run. The tasks are read in place, not copied, so that lanes on other cores do
    /// not contend on the reference counts of what the tasks share.
    @inlinable
    func runChunk(_ chunk: Range<Int>, keeping kept: inout [(index: Int, outcome: Outcome)]) -> ChunkEnd {
        tasks.withUnsafeBufferPointer { tasks in
            for index in chunk {
                guard !isFinished.load(ordering: .acquiring) else { return .runIsOver }
                let outcome = Lane.perform(tasks[index])
                if mayEndRun(outcome) { return .stoppedAt(index: index, outcome: outcome) }
                kept.append((index, outcome))
                if index + 1 < chunk.upperBound && lanesGiveBackChunks.load(ordering: .relaxed) {
                    return .givingBackAfter(index: index)
                }
            }
            return .ranAll
        }
    }

    /// A chunk that took less than this many nanoseconds lets its lane ask for twice as many
    /// tasks next time (eight times as many if it took less than an eighth of that); a
    /// slower one sends it back to one at a time. So a lane soon takes large chunks of short
    /// tasks, and a lane whose tasks block never holds tasks that another lane could be
    /// running.
    @usableFromInline
    static var quickChunkNanoseconds: UInt64 { 20_000 }

    /// How many tasks a lane asks for when it would ask for `limit`: one, once the ramp found
    /// the lanes stuck, since a lane that blocks in one task would hold the rest of its chunk
    /// until that task ends.
    @inlinable
    func chunkRequest(_ limit: Int) -> Int {
        lanesGiveBackChunks.load(ordering: .relaxed) ? 1 : limit
    }

    /// How many tasks a lane asks for after a chunk of `size` tasks that took `nanoseconds`.
    @inlinable
    static func nextChunkLimit(after size: Int, took nanoseconds: UInt64) -> Int {
        guard nanoseconds < quickChunkNanoseconds else { return 1 }
        let growth = nanoseconds < quickChunkNanoseconds / 8 ? 8 : 2
        return min(size * growth, BoundedRunStateMachine.maximumChunkSize)
    }

    /// Runs lane `lane` until the run has no more tasks for it.
    ///
    /// - Parameter onWorkers: the run's lanes are on Taskig's workers, so a lane may start
    ///   others there. Lanes on a queue the caller named stay on it: a lane moved to a worker
    ///   would wait for tasks sent to that queue, which the caller may be holding.
    @inlinable
    func runLane(_ lane: Int, onWorkers: Bool) {
        var next = BoundedRunStateMachine.NextAction.stop
        var chunkLimit = 1
        coordination.withLock { state in
            // A lane joining a run of quick tasks starts where the others have got to.
            chunkLimit = state.quickChunkLimit
            next = state.machine.claim(lane: lane, upTo: chunkRequest(chunkLimit))
            state.returnLaneIfItStops(lane, next: next)
        }
        guard case .run = next else { return }
        var kept: [(index: Int, outcome: Outcome)] = []
        kept.reserveCapacity(min(BoundedRunStateMachine.maximumChunkSize, tasks.count))
        var chunkStart = DispatchTime.now().uptimeNanoseconds
        while case .run(let chunk) = next {
            var settled = chunk.count
            var endingOutcome: Outcome?
            var givingBackTheRest = false
            switch runChunk(chunk, keeping: &kept) {
            case .ranAll: break
            case .runIsOver: return
            case .stoppedAt(let index, let outcome):
                settled = index - chunk.lowerBound + 1
                endingOutcome = outcome
            case .givingBackAfter(let index):
                settled = index - chunk.lowerBound + 1
                givingBackTheRest = true
            }
            // The next chunk's clock starts here too: one reading per chunk.
            let chunkEnd = DispatchTime.now().uptimeNanoseconds
            chunkLimit = Self.nextChunkLimit(after: chunkLimit, took: chunkEnd - chunkStart)
            let wasQuick = chunkLimit > 1
            chunkStart = chunkEnd
            if let settleOutsideTheLock {
                for (index, outcome) in kept { _ = settleOutsideTheLock(outcome, index) }
                kept.removeAll(keepingCapacity: true)
            }
            coordination.withLock { state in
                guard !state.machine.isFinished else {
                    next = .stop
                    return
                }
                state.quickChunkLimit = wasQuick ? max(state.quickChunkLimit, chunkLimit) : 1
                let settle = state.settle
                for (index, outcome) in kept {
                    _ = settle(outcome, index)
                }
                var verdict = Verdict.keepGoing
                if let endingOutcome {
                    verdict = settle(endingOutcome, chunk.lowerBound + settled - 1)
                }
                next = state.machine.settle(
                    lane: lane, settled: settled, finishesRun: verdict == .finishRun,
                    nextChunkUpTo: chunkRequest(chunkLimit),
                    givingBackTheRest: givingBackTheRest)
                state.returnLaneIfItStops(lane, next: next)
                if case .finish = next { isFinished.store(true, ordering: .releasing) }
            }
            kept.removeAll(keepingCapacity: true)
            if givingBackTheRest && onWorkers {
                // The tasks just given back wait for nothing now, and the ramp's next look
                // may be milliseconds away.
                recruitLanes(upTo: chunk.count - settled)
            } else if lanesRecruitEachOther.load(ordering: .relaxed) {
                recruitLanes()
            } else if onWorkers && WorkerPool.shared.hasThreadLookingForWork {
                recruitLanes(lookingForWork: true)
            }
        }
        if case .finish(let stillRunning) = next {
            for index in stillRunning { Lane.cancel(tasks[index]) }
            finished.complete(with: ())
        }
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
