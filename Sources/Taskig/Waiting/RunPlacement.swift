import Dispatch
import Foundation

/// Where a run's work starts.
///
/// | task's queue | waiter on that queue | waiter elsewhere |
/// | --- | --- | --- |
/// | global concurrent | in place, unless the waiter is the main thread or must be free to leave early (see below) | same |
/// | main | in place | `DispatchQueue.main.async` |
/// | any other queue | in place | `queue.async` |
///
/// Running in place is what `DispatchQueue.sync` does for a concurrent queue: a global queue
/// promises no particular thread, so the waiting thread may as well do the work instead of
/// parking while another thread does it, and a blocked waiter then never needs a second
/// thread, so nested waits cannot exhaust any pool. On a serial queue the waiter already holds
/// the queue, so running in place is the only way that does not deadlock.
///
/// Global-queue work goes to a Taskig worker instead in two cases. On the main thread the
/// work could tell where it runs (`DispatchQueue.main.sync` would crash, a block sent to the
/// main queue would wait for the waiter), so it runs elsewhere while the main queue stays
/// serviced. And a run that something else can cancel (see ``Run/isCancellable``) must let its
/// waiter go at once, which a waiter busy running the work cannot do; except on a worker, where
/// the waiter is itself some run's work: there the work runs in place, so nesting never
/// multiplies threads, and the outer waiter is released by its own run's cancellation.
///
/// A wait with a deadline never runs global-queue work in place, so that it can leave at the
/// deadline; except, on a worker, when no worker is free for the work. Then every worker may
/// be such a waiter (a `timeout` on each task of a wide collection), and work sent to the
/// pool's queue would wait there past every deadline: the waiter runs it, and leaves when it
/// ends.
@usableFromInline
enum RunPlacement: Sendable, Equatable {
    /// On the calling thread.
    case inPlace
    /// Sent to the queue, which may be serial.
    case onQueue(DispatchQueue)
    /// Handed to a Taskig worker (see ``WorkerPool``).
    case onWorker
    /// Handed to a Taskig worker when one is free for it, otherwise run on the calling
    /// thread, itself a worker.
    case onFreeWorkerOrInPlace

    /// When the waiter must be free to leave before the work ends.
    @usableFromInline
    enum Release: Sendable {
        /// Never: nothing but the work's end ends the wait.
        case never
        /// When the run is cancelled (see ``Run/isCancellable``): honoured by running the
        /// work elsewhere, except on a worker, where nesting runs it in place.
        case onCancel
        /// At a deadline: the work does not run on the waiter, unless the waiter is a worker
        /// and no other worker is free for it (see above).
        case atDeadline
    }

    /// Where work whose queue is `queue`, of kind `kind`, starts for a waiter on this thread.
    @inlinable
    static func forWork(of kind: QueueAffinity.Kind, on queue: DispatchQueue?, release: Release) -> RunPlacement {
        switch kind {
        case .globalConcurrent:
            if MainThread.isCurrent { return .onWorker }
            switch release {
            case .never: return .inPlace
            case .onCancel: return WorkerThread.isCurrent ? .inPlace : .onWorker
            case .atDeadline: return WorkerThread.isCurrent ? .onFreeWorkerOrInPlace : .onWorker
            }
        case .main, .other:
            let queue = queue ?? QueueAffinity.defaultGlobalQueue
            return QueueAffinity.isCurrent(queue, kind: kind) ? .inPlace : .onQueue(queue)
        }
    }

    /// Where work whose queue is `queue` starts for a caller that does not wait for it
    /// (`async`, `start()`): never on this thread.
    @inlinable
    static func away(of kind: QueueAffinity.Kind, on queue: DispatchQueue?) -> RunPlacement {
        switch kind {
        case .globalConcurrent: return .onWorker
        case .main, .other: return .onQueue(queue ?? QueueAffinity.defaultGlobalQueue)
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
        case .onQueue(let queue): queue.async(execute: job)
        case .onWorker: WorkerPool.shared.submit(job)
        case .onFreeWorkerOrInPlace: if !WorkerPool.shared.trySubmit(job) { job() }
        }
    }

    @inlinable
    static func == (lhs: RunPlacement, rhs: RunPlacement) -> Bool {
        switch (lhs, rhs) {
        case (.inPlace, .inPlace), (.onWorker, .onWorker), (.onFreeWorkerOrInPlace, .onFreeWorkerOrInPlace): return true
        case (.onQueue(let left), .onQueue(let right)): return left === right
        default: return false
        }
    }
}
