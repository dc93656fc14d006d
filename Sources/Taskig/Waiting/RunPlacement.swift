import Dispatch

/// Where a run's work starts, decided once per wait.
///
/// | task's queue | waiter on that queue | waiter elsewhere |
/// | --- | --- | --- |
/// | global concurrent | in place | in place, or on a Taskig worker when the waiter must be able to leave early (see ``EarlyRelease``) |
/// | main | in place | `DispatchQueue.main.async` |
/// | any other queue | in place | `queue.async` |
///
/// Running in place is what `DispatchQueue.sync` does for a concurrent queue: a global queue
/// promises no particular thread, so the waiting thread may as well do the work instead of
/// parking while another thread does it. It also means a blocked waiter never needs a
/// second thread, so nested waits cannot exhaust any pool. On a serial queue the waiter
/// already holds the queue, so running in place is the only way that does not deadlock.
@usableFromInline
enum RunPlacement {
    /// Start the work on the calling thread.
    case inPlace
    /// Send the work to the queue, which may be serial.
    case onQueue(DispatchQueue)
    /// Hand the work to a Taskig worker thread, or run it in place when none is free.
    case onWorker

    /// When the waiter must be free to return before the work ends.
    @usableFromInline
    enum EarlyRelease {
        /// Never: the waiter waits for the work.
        case never
        /// When the task is cancelled. Honoured by handing the work to a worker, except
        /// when the waiter is itself a worker (a lane of a collection wait, or work nested
        /// in one): there the work runs in place, so nesting never multiplies threads.
        case onCancel
        /// At a deadline, which is always honoured: the work always gets a worker.
        case atDeadline
    }

    /// Where a run of `task`, whose queue is `queue`, starts. The queue is only asked for when
    /// the task does not know its kind or its queue is not a global one.
    @inlinable
    static func forTask<Work>(
        _ task: Work,
        on queue: @autoclosure () -> DispatchQueue,
        release: EarlyRelease
    ) -> RunPlacement {
        let kind = (task as? KnownQueueKind)?.executionQueueKind ?? QueueAffinity.kind(of: queue())
        switch kind {
        case .globalConcurrent:
            switch release {
            case .never: return .inPlace
            case .onCancel: return WorkerThread.isCurrent ? .inPlace : .onWorker
            case .atDeadline: return .onWorker
            }
        case .main, .other:
            let queue = queue()
            return QueueAffinity.isCurrent(queue, kind: kind) ? .inPlace : .onQueue(queue)
        }
    }
}

extension CompletionCell {
    /// Starts the run's work where `placement` says.
    @inlinable
    func launch(_ placement: RunPlacement) {
        switch placement {
        case .inPlace:
            startIfNeeded()
        case .onQueue(let queue):
            queue.async { self.startIfNeeded() }
        case .onWorker:
            // Only a waiter that is not a worker, or one with a deadline, hands work over, so
            // this never multiplies threads through nesting, and the work must start.
            _ = WorkerPool.shared.trySubmit({ self.startIfNeeded() }, admission: .always)
        }
    }
}

/// A task that worked out what kind of queue it runs on when it was made, so that waiting
/// for it does not read the queue's label every time.
@usableFromInline
protocol KnownQueueKind {
    var executionQueueKind: QueueAffinity.Kind { get }
}
