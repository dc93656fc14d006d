/// The Taskig work bound for one serial queue (or the main queue) that a thread holding the
/// queue may run while it waits, instead of the queue (rule 2 of "Waiting safely" in the
/// documentation). Pure logic, no locks: ``QueueHandOff`` runs it under its lock and carries
/// out the returned actions outside.
///
/// A job sent while no holder waits goes to the queue as usual and is also kept here, so that a
/// holder that starts to wait before the queue reaches it runs it: whichever comes first claims
/// it (see ``ClaimableJob``). A job sent while a holder waits is handed to that holder alone,
/// which wakes up to run it; whatever it leaves when its last wait ends goes to the queue then.
///
/// Only the thread that holds the queue waits on it, so the waits form a stack on that thread:
/// a job handed to the holder runs inside the innermost one.
struct QueueHandOffState<Waiter, Destination> {
    /// What a send leads to.
    enum SendAction {
        /// Wake this waiting holder, which runs the job.
        case wake(Waiter)
        /// Send the job to the queue too: no holder waits.
        case sendToQueue
    }

    /// The jobs that may still be claimed, first sent first, from `head` on; claimed ones are
    /// skipped and dropped as `head` passes them.
    private var jobs: [Kept] = []
    private var head = 0
    /// The holder's waits, innermost last.
    private var waiters: [Waiter] = []

    /// A job, the queue it is bound for, and whether it went to the queue too.
    struct Kept {
        let job: ClaimableJob
        /// Held with the job: the hand-off keeps no queue of its own, which would keep the
        /// queue that keeps its tag alive for good.
        let queue: Destination
        var sentToQueue: Bool
    }

    /// Whether a holder of the queue waits now.
    var hasWaiter: Bool { !waiters.isEmpty }

    /// How many jobs are kept, claimed or not.
    var keptCount: Int { jobs.count - head }

    /// Keeps `job`, bound for `queue`, for a waiting holder, or for the queue when none waits.
    mutating func send(_ job: ClaimableJob, to queue: Destination) -> SendAction {
        dropClaimedAtHead()
        if let waiter = waiters.last {
            jobs.append(Kept(job: job, queue: queue, sentToQueue: false))
            return .wake(waiter)
        }
        jobs.append(Kept(job: job, queue: queue, sentToQueue: true))
        return .sendToQueue
    }

    /// The holder begins a wait.
    mutating func beginWaiting(_ waiter: Waiter) {
        waiters.append(waiter)
    }

    /// Takes every kept job for the waiting holder to run, first sent first.
    mutating func takeForWaiter() -> [ClaimableJob] {
        precondition(hasWaiter, "BUG IN TASKIG: a thread that does not wait took a queue's jobs")
        return takeForHolder()
    }

    /// Takes every kept job for the holder, which is about to wait and has not begun yet, to
    /// run, first sent first: the jobs sent to the queue meanwhile are kept too.
    mutating func takeForHolder() -> [ClaimableJob] {
        defer {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        }
        return jobs[head...].map(\.job)
    }

    /// What ending a wait leads to.
    enum EndAction {
        /// Nothing: no job waits, or the queue was sent those that do.
        case none
        /// Send these jobs, handed to the holder and not run, to their queue: no wait of the
        /// holder is left.
        case sendToQueue([(job: ClaimableJob, queue: Destination)])
        /// Wake the holder's wait that is now innermost: jobs handed to the one that ended wait
        /// for it.
        case wake(Waiter)
    }

    /// The holder's innermost wait ends.
    mutating func endWaiting() -> EndAction {
        precondition(hasWaiter, "BUG IN TASKIG: a wait on a queue ended twice")
        waiters.removeLast()
        dropClaimedAtHead()
        if let outer = waiters.last { return keptCount > 0 ? .wake(outer) : .none }
        var toQueue: [(job: ClaimableJob, queue: Destination)] = []
        for index in jobs.indices[head...] where !jobs[index].sentToQueue {
            jobs[index].sentToQueue = true
            toQueue.append((jobs[index].job, jobs[index].queue))
        }
        return toQueue.isEmpty ? .none : .sendToQueue(toQueue)
    }

    /// The queue ran one of the jobs it was sent: drops the claimed jobs at the front.
    mutating func queueRanAJob() {
        dropClaimedAtHead()
    }

    /// Drops claimed jobs from the front, and the dropped ones' room once they are most of
    /// the array.
    private mutating func dropClaimedAtHead() {
        while head < jobs.count, jobs[head].job.isClaimed { head += 1 }
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 32, head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
    }
}
