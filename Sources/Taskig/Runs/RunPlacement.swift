import Dispatch
import Foundation

/// Where a run's work starts: the one rule of "Waiting safely" in the documentation, decided
/// here for every wait, chain step, future, `async` and collection.
///
/// | work's queue | caller waits, no deadline | caller waits with a deadline | caller does not wait |
/// | --- | --- | --- | --- |
/// | global | in place; a worker on the main thread | a worker; in place on a worker if none is free | a worker |
/// | main or serial, held by the caller | in place | in place | the queue |
/// | main or serial, not held | the queue | the queue | the queue |
/// | none: the run only listens to a future | in place | in place | in place |
///
/// - A waiter runs the work itself where the work may run (rule 1): a global queue promises no
///   particular thread, as `DispatchQueue.sync` on a concurrent queue shows, so a blocked
///   waiter never needs a second thread and nested waits cannot exhaust a pool; a serial queue
///   the waiter holds can only run the work on the waiter. Whether other copies of the task
///   exist does not matter: cancellation reaches such a waiter cooperatively.
/// - Work sent to a serial or main queue goes through that queue's ``QueueHandOff``, so that a
///   thread holding the queue and waiting runs it instead (rule 2).
/// - A wait with a deadline, and any wait on the main thread, leaves global work to a worker
///   (rule 3), so that it can return on time and so that the work never runs on the main
///   thread. The worker runs it at the queue's quality of service, raised to the waiter's
///   (see ``WorkQoS``). A waiter that is itself a worker runs the work when no other worker is free for
///   it: every worker may be such a waiter (a `timeout` on each task of a wide collection),
///   and work sent to the pool would then wait there past every deadline. The deadline of
///   work its waiter runs cancels the run instead (see ``RunLaunch``).
///
/// The main queue is held by the main thread, and under `dispatchMain()` by the thread that
/// runs a main-queue block (see ``QueueAffinity/isCurrent(_:kind:)``).
///
/// A collection's lanes follow the same rule (see ``ofLanes(on:mayEndEarly:isRace:someTaskIsBound:)``).
/// The fast paths of the waits ask ``of(_:queue:wait:caller:)``, which is inlined where they
/// are: for a task on a global queue it is one comparison and the main-thread check.
@usableFromInline
enum RunPlacement: Sendable, Equatable {
    /// On the calling thread.
    case inPlace
    /// Sent to the queue, which may be serial, through its hand-off.
    case onQueue(DispatchQueue, QueueAffinity.Kind)
    /// Handed to a Taskig worker (see ``WorkerPool``), which runs it at this quality of service.
    case onWorker(WorkQoS)
    /// Handed to a Taskig worker when one is free for it, at this quality of service, otherwise
    /// run on the calling thread, itself a worker.
    case onFreeWorkerOrInPlace(WorkQoS)

    /// How the caller waits for the work.
    @usableFromInline
    enum Wait: Sendable, Equatable {
        /// Until the work ends.
        case untilDone
        /// At most until a deadline.
        case withDeadline
        /// Not at all: `async`, `start()`, Swift's `value`.
        case no
    }

    /// The calling thread, as the rule sees it: a loop that places many pieces of work on one
    /// thread (a chain's steps) asks once.
    @usableFromInline
    struct Caller: Sendable {
        @usableFromInline
        let isMainThread: Bool

        @inlinable
        init(isMainThread: Bool) {
            self.isMainThread = isMainThread
        }

        /// The calling thread.
        @inlinable
        static var current: Caller { Caller(isMainThread: MainThread.isCurrent) }
    }

    /// Where work on `queue` starts for a caller on this thread that waits as `wait` says;
    /// `nil` for a run that only listens to a future, which never blocks.
    @inlinable
    static func of(_ queue: WorkQueue?, wait: Wait) -> RunPlacement {
        guard let queue else { return .inPlace }
        return of(queue.kind, queue: queue.dispatchQueue, wait: wait)
    }

    /// Where work on `queue`, of `kind`, starts for `caller` when it waits as `wait` says.
    /// `queue` is asked only when it is not a global queue.
    @inlinable
    @inline(__always)
    static func of(
        _ kind: QueueAffinity.Kind, queue: @autoclosure () -> DispatchQueue, wait: Wait,
        caller: @autoclosure () -> Caller = .current
    ) -> RunPlacement {
        guard kind.isGlobal else {
            let dispatchQueue = queue()
            if wait != .no, QueueAffinity.isCurrent(dispatchQueue, kind: kind) { return .inPlace }
            return .onQueue(dispatchQueue, kind)
        }
        if wait == .no { return .onWorker(kind.qos) }
        if caller().isMainThread { return .onWorker(.ofHandOff(kind.qos, waiter: .userInteractive)) }
        guard wait == .withDeadline else { return .inPlace }
        let handedOff = WorkQoS.ofHandOff(kind.qos, waiter: .ofWaiter)
        return WorkerThread.isCurrent ? .onFreeWorkerOrInPlace(handedOff) : .onWorker(handedOff)
    }

    /// Where a collection's lanes run when its caller names `queue` for them, and whether the
    /// caller runs a lane itself. The caller waits for the lanes, so the rule is the one above:
    ///
    /// | lanes' queue | caller | lanes | caller runs a lane |
    /// | --- | --- | --- | --- |
    /// | main or serial, held by the caller | any | ``inPlace``: the caller runs every task | yes |
    /// | main or serial, not held | any | the queue | no |
    /// | global | the main thread | workers | no |
    /// | global | holds a serial queue some task is bound for | ``inPlace`` | yes |
    /// | global | a worker (a nested wait) | a worker when one is free; a race's: workers | yes |
    /// | global | any other thread | workers | when nothing can end the batch early |
    ///
    /// The caller never runs lanes on the main thread, where the work could tell where it runs;
    /// a worker runs one, so that nesting never needs more threads; a task bound for a serial
    /// queue the caller holds can only run on the caller, which then runs every task in input
    /// order. A race (`isRace`) needs every runner running, and a runner may wait until the race
    /// is over (a cycle through a race is no deadlock): nested, its other lanes go to workers
    /// even when none is free, to start as soon as one is, since the caller's own lane may be
    /// stuck in such a runner. `someTaskIsBound` tells whether some task's work queue passes its
    /// test; it is asked only by a caller that holds a queue Taskig knows.
    @inlinable
    static func ofLanes(
        on queue: WorkQueue, mayEndEarly: Bool, isRace: Bool, someTaskIsBound: ((WorkQueue) -> Bool) -> Bool
    ) -> (lanes: RunPlacement, callerRunsLane: Bool) {
        guard queue.isGlobal else {
            let lanes = of(queue, wait: .untilDone)
            return (lanes, lanes == .inPlace)
        }
        let qos = WorkQoS.ofHandOff(queue.kind.qos, waiter: .ofWaiter)
        if MainThread.isCurrent { return (.onWorker(qos), false) }
        if QueueAffinity.heldHandOff != nil,
            someTaskIsBound({ !$0.isGlobal && of($0, wait: .untilDone) == .inPlace })
        {
            return (.inPlace, true)
        }
        if WorkerThread.isCurrent { return (isRace ? .onWorker(qos) : .onFreeWorkerOrInPlace(qos), true) }
        return (.onWorker(qos), !mayEndEarly)
    }

    /// Whether ``sendElsewhere(_:)`` always takes its job: on a worker, which may wait for a
    /// thread, or on a queue.
    @inlinable
    var alwaysSendsElsewhere: Bool {
        switch self {
        case .onWorker, .onQueue: return true
        case .inPlace, .onFreeWorkerOrInPlace: return false
        }
    }

    /// Runs `job` where this placement says, but never on the calling thread: returns `false`,
    /// without running it, when it would run here (in place, or no worker is free for it).
    @inlinable
    func sendElsewhere(_ job: @escaping @Sendable () -> Void) -> Bool {
        switch self {
        case .inPlace: return false
        case .onQueue(let queue, let kind): QueueAffinity.handOff(of: queue, kind: kind).send(job, to: queue)
        case .onWorker(let qos): WorkerPool.shared.submit(job, qos: qos)
        case .onFreeWorkerOrInPlace(let qos): return WorkerPool.shared.trySubmit(job, qos: qos)
        }
        return true
    }

    /// Runs `job` where this placement says, after `delay` seconds (at once for zero or less);
    /// `beforeRunningHere` runs first when the job runs on the calling thread.
    @inlinable
    func send(
        after delay: TimeInterval = 0, beforeRunningHere: (() -> Void)? = nil,
        _ job: @escaping @Sendable () -> Void
    ) {
        if delay > 0 {
            // The timer's thread is not a waiter that may run the work.
            let later: RunPlacement
            if case .onFreeWorkerOrInPlace(let qos) = self { later = .onWorker(qos) } else { later = self }
            Scheduling.after(delay) { later.send(job) }
            return
        }
        // Each case calls `job` or hands it on itself (not through ``sendElsewhere(_:)``), so
        // that a job run in place needs no context on the heap: `callback-throwable-task-await`
        // of count-instructions.sh.
        switch self {
        case .inPlace:
            beforeRunningHere?()
            job()
        case .onQueue(let queue, let kind): QueueAffinity.handOff(of: queue, kind: kind).send(job, to: queue)
        case .onWorker(let qos): WorkerPool.shared.submit(job, qos: qos)
        case .onFreeWorkerOrInPlace(let qos):
            if !WorkerPool.shared.trySubmit(job, qos: qos) {
                beforeRunningHere?()
                job()
            }
        }
    }

    @inlinable
    static func == (lhs: RunPlacement, rhs: RunPlacement) -> Bool {
        switch (lhs, rhs) {
        case (.inPlace, .inPlace): return true
        case (.onWorker(let left), .onWorker(let right)),
            (.onFreeWorkerOrInPlace(let left), .onFreeWorkerOrInPlace(let right)):
            return left == right
        case (.onQueue(let left, _), .onQueue(let right, _)): return left === right
        default: return false
        }
    }
}
