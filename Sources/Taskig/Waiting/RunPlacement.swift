import Dispatch
import Foundation

/// Where a run's work starts: the one rule of DESIGN §3, decided here for every wait, chain
/// step, future, `async` and collection.
///
/// | work's queue | caller waits, no deadline | caller waits with a deadline | caller does not wait |
/// | --- | --- | --- | --- |
/// | global | in place; a worker on the main thread | a worker; in place on a worker when no other worker is free | a worker |
/// | main or serial, held by the caller | in place | in place | the queue |
/// | main or serial, not held | the queue | the queue | the queue |
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
///   thread. A waiter that is itself a worker runs the work when no other worker is free for
///   it: every worker may be such a waiter (a `timeout` on each task of a wide collection),
///   and work sent to the pool would then wait there past every deadline.
///
/// The main queue is held by the main thread, and under `dispatchMain()` by the thread that
/// runs a main-queue block (see ``QueueAffinity/isCurrent(_:kind:)``).
@usableFromInline
enum RunPlacement: Sendable, Equatable {
    /// On the calling thread.
    case inPlace
    /// Sent to the queue, which may be serial, through its hand-off.
    case onQueue(DispatchQueue, QueueAffinity.Kind)
    /// Handed to a Taskig worker (see ``WorkerPool``).
    case onWorker
    /// Handed to a Taskig worker when one is free for it, otherwise run on the calling
    /// thread, itself a worker.
    case onFreeWorkerOrInPlace

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

    /// Where work on `queue` starts for a caller on this thread that waits as `wait` says.
    @inlinable
    static func of(_ queue: WorkQueue, wait: Wait) -> RunPlacement {
        switch queue.kind {
        case .globalConcurrent:
            if wait == .no || MainThread.isCurrent { return .onWorker }
            if wait == .withDeadline { return WorkerThread.isCurrent ? .onFreeWorkerOrInPlace : .onWorker }
            return .inPlace
        case .main, .other:
            let dispatchQueue = queue.dispatchQueue
            if wait != .no, QueueAffinity.isCurrent(dispatchQueue, kind: queue.kind) { return .inPlace }
            return .onQueue(dispatchQueue, queue.kind)
        }
    }

    /// Runs `job` where this placement says, after `delay` seconds (at once for zero or less).
    @inlinable
    func send(after delay: TimeInterval = 0, _ job: @escaping @Sendable () -> Void) {
        if delay > 0 {
            // The timer's thread is not a waiter that may run the work.
            let later = self == .onFreeWorkerOrInPlace ? .onWorker : self
            Scheduling.after(delay) { later.send(job) }
            return
        }
        switch self {
        case .inPlace: job()
        case .onQueue(let queue, let kind): QueueAffinity.handOff(of: queue, kind: kind).send(job, to: queue)
        case .onWorker: WorkerPool.shared.submit(job)
        case .onFreeWorkerOrInPlace: if !WorkerPool.shared.trySubmit(job) { job() }
        }
    }

    @inlinable
    static func == (lhs: RunPlacement, rhs: RunPlacement) -> Bool {
        switch (lhs, rhs) {
        case (.inPlace, .inPlace), (.onWorker, .onWorker), (.onFreeWorkerOrInPlace, .onFreeWorkerOrInPlace): return true
        case (.onQueue(let left, _), .onQueue(let right, _)): return left === right
        default: return false
        }
    }
}

/// The queue a task's work runs on, with what Taskig knows of it.
@usableFromInline
struct WorkQueue: Sendable {
    /// `nil` for the default global queue, which then needs no reference counted.
    @usableFromInline
    let queue: DispatchQueue?
    @usableFromInline
    let kind: QueueAffinity.Kind

    @inlinable
    init(_ queue: DispatchQueue?, kind: QueueAffinity.Kind) {
        self.queue = queue
        self.kind = kind
    }

    /// `queue`, whose kind is asked here.
    @inlinable
    init(_ queue: DispatchQueue) {
        self.init(queue, kind: QueueAffinity.kind(of: queue))
    }

    @inlinable
    var dispatchQueue: DispatchQueue { queue ?? QueueAffinity.defaultGlobalQueue }

    /// Whether the queue is a global, concurrent one.
    @inlinable
    var isGlobal: Bool { kind == .globalConcurrent }
}
