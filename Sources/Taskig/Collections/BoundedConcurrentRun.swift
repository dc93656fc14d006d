import Dispatch
import Foundation
import Synchronization

/// Runs a collection of tasks with at most `lanes` of them at once and releases the caller
/// as soon as the outcome is known.
///
/// Each lane is a loop on its own thread: take a chunk of tasks, run each to completion on
/// that thread, report the outcomes. Lanes run on Taskig's worker threads (or on the queue
/// the caller names), never on Dispatch's global pool, so tasks that block do not starve it.
/// The caller only waits; it runs a lane itself when no worker is free (nested collections
/// under load) or when the lanes' queue is the serial queue it is already on.
///
/// Outcomes that cannot end the run early (a success, when only a failure can) are kept by
/// the lane and reported together with its next chunk request, so a run of short tasks
/// takes the lock about once per chunk rather than once per task.
///
/// `@unchecked Sendable` is safe here: `machine`, and everything `settle` writes, is only
/// touched while `lock` is held; `tasks` and the closures are immutable after `init`;
/// `isFinished` is atomic.
@usableFromInline
final class BoundedConcurrentRun<Lane: LaneWork>: @unchecked Sendable {
    @usableFromInline
    typealias Element = Lane.Element
    @usableFromInline
    typealias Outcome = Lane.Outcome

    /// Which outcomes can end the run before every task settled.
    @usableFromInline
    enum EarlyEnd {
        /// None: the run ends when every task settled (`awaitAllResults`, a plain `awaitAll`).
        case never
        /// Those for which the closure returns `true` (a failure under fail-fast, a success
        /// for `awaitAny`).
        case when((Outcome) -> Bool)
        /// Any: the first outcome ends the run (`awaitFirst`).
        case always
    }

    /// What the run does with one outcome.
    @usableFromInline
    enum Verdict {
        case keepGoing
        case finishRun
    }

    @usableFromInline
    let lock = LockedState(())
    @exclusivity(unchecked) @usableFromInline
    var machine: BoundedRunStateMachine
    /// Set once the run is over; lanes read it before each task so they start nothing more.
    @usableFromInline
    let isFinished = Atomic(false)
    @usableFromInline
    let tasks: [Element]
    @usableFromInline
    let laneCount: Int
    @usableFromInline
    let earlyEnd: EarlyEnd
    @usableFromInline
    let settle: (Outcome, Int) -> Verdict
    @usableFromInline
    let finished = CompletionCell<Void>(work: { _ in })
    /// Lane numbers not running yet: lanes start when a worker is free, and a lane that
    /// finds a chunk boundary with work left tries to start one more.
    @exclusivity(unchecked) @usableFromInline
    var idleLanes: [Int]

    /// - Parameters:
    ///   - earlyEnd: the outcomes that can end the run early, so must be reported at once.
    ///   - settle: records an outcome, under the lock, and says whether the run is over.
    ///     It is called at most once per task and never after the run finished.
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
        self.machine = BoundedRunStateMachine(count: tasks.count, lanes: laneCount)
        self.earlyEnd = earlyEnd
        self.settle = settle
        self.idleLanes = Array((0..<laneCount).reversed())
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
                runLane(takeIdleLane()!)
            } else {
                while let lane = takeIdleLane() {
                    queue.async { self.runLane(lane) }
                }
            }
            _ = BlockingWait.value(of: finished)
        }
    }

    /// How long the first lanes run alone before the rest start.
    @usableFromInline
    static var rampInterval: DispatchTimeInterval { .microseconds(100) }

    /// Starts one lane per core, and the remaining lanes ``rampInterval`` later if tasks are
    /// left by then that no lane has taken, up to `concurrency` lanes. A run of short tasks
    /// so never wakes more threads than it can use, and a run of long or blocking tasks
    /// reaches its full concurrency a tenth of a millisecond in. The rest are started from
    /// Taskig's timer queue, so this happens however long the first tasks take.
    ///
    /// When no task can end the run early, the caller itself runs the first lane: it has to
    /// wait for every task anyway, and this saves a hand-off. Otherwise the caller only
    /// waits, so that it can return the moment the outcome is known.
    ///
    /// A caller that is itself a worker (a nested wait) may be refused workers when the pool
    /// is at its limit; it then runs a lane itself, and from then on each lane tries to start
    /// another whenever it takes a new chunk.
    @inlinable
    func runLanesOnWorkers() {
        let admission: WorkerPool.Admission = WorkerThread.isCurrent ? .refusedAtLimit : .always
        var callerLane: Int?
        if case .never = earlyEnd { callerLane = takeIdleLane(onlyIfTasksAreUnclaimed: true) }
        // As many lanes as there are cores start at once; the ramp adds the rest.
        let startingLanes = min(laneCount, Self.processorCount) - (callerLane == nil ? 0 : 1)
        var started = callerLane == nil ? 0 : 1
        for _ in 0..<startingLanes {
            guard let lane = takeIdleLane(onlyIfTasksAreUnclaimed: true) else { break }
            guard WorkerPool.shared.trySubmit({ self.runLane(lane) }, admission: admission) else {
                lanesRecruitEachOther.store(true, ordering: .relaxed)
                callerLane = callerLane ?? lane
                break
            }
            started += 1
        }
        rampUp(admission: admission)
        if let callerLane { runLane(callerLane) }
        _ = BlockingWait.value(of: finished)
    }

    @usableFromInline
    static var processorCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Starts the remaining lanes after ``rampInterval`` if tasks are left that no lane has
    /// taken by then.
    @inlinable
    func rampUp(admission: WorkerPool.Admission) {
        Scheduling.timerQueue.asyncAfter(deadline: .now() + Self.rampInterval) {
            // On the timer queue nothing may wait for a thread: other timers queue behind it.
            let atOnce: WorkerPool.Admission = admission == .refusedAtLimit ? .refusedAtLimit : .alwaysAtOnce
            while let lane = self.takeIdleLane(onlyIfTasksAreUnclaimed: true) {
                guard WorkerPool.shared.trySubmit({ self.runLane(lane) }, admission: atOnce) else {
                    self.returnIdleLane(lane)
                    self.lanesRecruitEachOther.store(true, ordering: .relaxed)
                    return
                }
            }
        }
    }

    @inlinable
    func takeIdleLane(onlyIfTasksAreUnclaimed: Bool = false) -> Int? {
        lock.withLock { _ in
            guard !onlyIfTasksAreUnclaimed || (!machine.isFinished && machine.hasUnclaimedTasks) else { return nil }
            return idleLanes.popLast()
        }
    }

    @inlinable
    func returnIdleLane(_ lane: Int) {
        lock.withLock { _ in idleLanes.append(lane) }
    }

    /// Starts one more lane on a worker if one is idle, the pool has a thread, and there is
    /// work that no lane has taken yet.
    @inlinable
    func recruitLane() {
        guard let lane = takeIdleLane(onlyIfTasksAreUnclaimed: true) else { return }
        if !WorkerPool.shared.trySubmit({ self.runLane(lane) }, admission: .refusedAtLimit) {
            returnIdleLane(lane)
        }
    }

    /// Set when a lane could not get a worker (see ``runLanesOnWorkers()``).
    @usableFromInline
    let lanesRecruitEachOther = Atomic(false)

    @inlinable
    func mayEndRun(_ outcome: Outcome) -> Bool {
        switch earlyEnd {
        case .never: return false
        case .when(let endsRun): return endsRun(outcome)
        case .always: return true
        }
    }

    @inlinable
    func runLane(_ lane: Int) {
        var next = BoundedRunStateMachine.NextAction.stop
        lock.withLock { _ in next = machine.claim(lane: lane) }
        var kept: [(index: Int, outcome: Outcome)] = []
        kept.reserveCapacity(BoundedRunStateMachine.maximumChunkSize)
        while case .run(let chunk) = next {
            var settled = 0
            var endingOutcome: Outcome?
            for index in chunk {
                guard !isFinished.load(ordering: .acquiring) else { return }
                let outcome = Lane.perform(tasks[index])
                settled += 1
                if mayEndRun(outcome) {
                    endingOutcome = outcome
                    break
                }
                kept.append((index, outcome))
            }
            lock.withLock { _ in
                guard !machine.isFinished else {
                    next = .stop
                    return
                }
                for (index, outcome) in kept {
                    _ = settle(outcome, index)
                }
                var verdict = Verdict.keepGoing
                if let endingOutcome {
                    verdict = settle(endingOutcome, chunk.lowerBound + settled - 1)
                }
                next = machine.settle(lane: lane, settled: settled, finishesRun: verdict == .finishRun)
                if case .finish = next { isFinished.store(true, ordering: .releasing) }
            }
            kept.removeAll(keepingCapacity: true)
            if lanesRecruitEachOther.load(ordering: .relaxed) { recruitLane() }
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
