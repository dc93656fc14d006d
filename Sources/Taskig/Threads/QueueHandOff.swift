import Dispatch

/// Taskig work bound for one serial queue (or the main queue): sent to the queue, or handed to
/// a thread that holds the queue and waits, which runs it (rule 2 of "Waiting safely" in the
/// documentation). Kept in the queue's ``QueueTag``; the logic is ``QueueHandOffState``'s.
///
/// Without it, work that a waiting thread's wait needs and that is bound for a queue the
/// thread holds (a chain's step, a `flatMap`'s inner task made at run time on another thread,
/// a future's start, a collection's task) would wait in the queue behind the waiting thread
/// for good.
@usableFromInline
final class QueueHandOff: Sendable {
    /// Wakes a waiting holder.
    @usableFromInline
    typealias Wake = @Sendable () -> Void

    private let state = LockedState(QueueHandOffState<Wake, DispatchQueue>())

    init() {}

    /// Runs `job` on the queue, or on the thread that holds it, if that thread waits.
    @usableFromInline
    func send(_ job: @escaping @Sendable () -> Void, to queue: DispatchQueue) {
        let claimable = ClaimableJob(job)
        switch state.withLock({ $0.send(claimable, to: queue) }) {
        case .wake(let wake):
            wake()
        case .sendToQueue:
            queue.async { self.runOnQueue(claimable) }
        }
    }

    /// Whether jobs wait for a holder to run them.
    @usableFromInline
    var hasHandedJobs: Bool {
        state.withLock { $0.keptCount > 0 }
    }

    /// The holding thread begins a wait, during which `wake` wakes it for a job handed over.
    @usableFromInline
    func beginWaiting(wake: @escaping Wake) {
        state.withLock { $0.beginWaiting(wake) }
    }

    /// Runs, on the waiting holder, the jobs sent to the queue that nobody has run yet.
    @usableFromInline
    func runHandedJobs() {
        for job in state.withLock({ $0.takeForWaiter() }) {
            job.claim()?()
        }
    }

    /// Runs, on the holder, which spins before its wait begins, the jobs sent to the queue that
    /// nobody has run yet: run from the queue instead, inside one of its blocks, they could not
    /// let the queue run the blocks they wait for in turn (the main thread's spin handles the
    /// main queue's blocks).
    @usableFromInline
    func runKeptJobs() {
        for job in state.withLock({ $0.takeForHolder() }) {
            job.claim()?()
        }
    }

    /// The holding thread's wait ends. The jobs handed to it and not run go to the wait it is
    /// nested in, which is woken for them, or, once it has no wait left, to the queue.
    @usableFromInline
    func endWaiting() {
        switch state.withLock({ $0.endWaiting() }) {
        case .none:
            break
        case .wake(let outer):
            outer()
        case .sendToQueue(let left):
            for (job, queue) in left {
                queue.async { self.runOnQueue(job) }
            }
        }
    }

    private func runOnQueue(_ job: ClaimableJob) {
        guard let work = job.claim() else { return }
        state.withLock { $0.queueRanAJob() }
        work()
    }
}
