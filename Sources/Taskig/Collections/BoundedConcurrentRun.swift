import Dispatch
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
    let mayEndRun: (Outcome) -> Bool
    @usableFromInline
    let settle: (Outcome, Int) -> Verdict
    @usableFromInline
    let finished = CompletionCell<Void>(work: { _ in })
    /// Lane numbers not running yet: lanes start when a worker is free, and a lane that
    /// finds a chunk boundary with work left tries to start one more.
    @exclusivity(unchecked) @usableFromInline
    var idleLanes: [Int]

    /// - Parameters:
    ///   - mayEndRun: whether an outcome could end the run, so must be reported at once.
    ///   - settle: records an outcome, under the lock, and says whether the run is over.
    ///     It is called at most once per task and never after the run finished.
    @inlinable
    init(
        _ lane: Lane.Type,
        tasks: [Element],
        concurrency: Int,
        mayEndRun: @escaping (Outcome) -> Bool = { _ in true },
        settle: @escaping (Outcome, Int) -> Verdict
    ) {
        self.tasks = tasks
        self.laneCount = min(concurrency, tasks.count)
        self.machine = BoundedRunStateMachine(count: tasks.count, lanes: laneCount)
        self.mayEndRun = mayEndRun
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
            recruitsLanes = true
            while let lane = takeIdleLane() {
                guard WorkerPool.shared.trySubmit({ self.runLane(lane) }) else {
                    runLane(lane)
                    break
                }
            }
        case .main, .other:
            if QueueAffinity.isCurrent(queue, kind: kind) {
                runLane(takeIdleLane()!)
            } else {
                while let lane = takeIdleLane() {
                    queue.async { self.runLane(lane) }
                }
            }
        }
        _ = BlockingWait.value(of: finished)
    }

    @inlinable
    func takeIdleLane() -> Int? {
        lock.withLock { _ in idleLanes.popLast() }
    }

    /// Starts one more lane on a worker if one is idle, the pool has a thread, and there is
    /// work that no lane has taken yet.
    @inlinable
    func recruitLane() {
        var lane: Int?
        lock.withLock { _ in
            if !machine.isFinished && machine.hasUnclaimedTasks { lane = idleLanes.popLast() }
        }
        guard let lane else { return }
        if !WorkerPool.shared.trySubmit({ self.runLane(lane) }) {
            lock.withLock { _ in idleLanes.append(lane) }
        }
    }

    /// Whether lanes run on Taskig's workers, so that more can be started later.
    @usableFromInline
    var recruitsLanes = false

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
            if recruitsLanes { recruitLane() }
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
    precondition(
        concurrency >= 1,
        "\(operation)(concurrency: \(concurrency)): concurrency is how many tasks may run at once and must be at least 1"
    )
}
