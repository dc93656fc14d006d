import Dispatch

/// The bookkeeping of ``WorkerPool``: which thread runs what, and what waits. Pure logic,
/// no locks; the pool runs it under its lock and carries out the returned actions outside.
///
/// The rule it keeps: never more than `maximumThreads` threads; at most
/// `maximumThreads - reservedForSwiftJobs` of them run ordinary work at once, so that the jobs
/// of Swift `async` bodies always find a thread even when ordinary work has blocked every
/// other one; whatever finds no thread waits in first-in, first-out order.
struct WorkerPoolState {
    /// What a submission leads to.
    enum SubmitAction {
        /// Signal the semaphore of this parked thread; the job is handed to it.
        case wake(DispatchSemaphore)
        /// Start a new thread, which takes the job handed over; it is already counted.
        case startThread
        /// The job waits for a thread to come free.
        case queued
        /// The job was not taken (``WorkerPool/trySubmit(_:)`` only).
        case refused
    }

    /// What a thread does after a job.
    enum Next {
        /// Run this job.
        case run(WorkerPool.Job, WorkerPool.JobKind)
        /// Park on the thread's semaphore, listed as idle.
        case park
    }

    let maximumThreads: Int
    let reservedForSwiftJobs: Int

    /// Threads alive, busy or idle, including those about to start.
    private(set) var threadCount = 0
    /// Threads running ordinary work.
    private(set) var busyWithWork = 0
    /// The semaphores of parked threads, the one parked last at the end: the next job goes
    /// to the thread idle for the shortest time, so the others reach their idle timeout.
    private var idleThreads: [DispatchSemaphore] = []
    /// Jobs handed to parked threads that have not woken up yet, or to threads that have not
    /// started yet; each takes one.
    private var handedOver = JobQueue()
    private var waitingWork = JobQueue()
    private var waitingSwiftJobs = JobQueue()

    init(maximumThreads: Int, reservedForSwiftJobs: Int) {
        precondition(maximumThreads > reservedForSwiftJobs, "the pool needs a thread for ordinary work")
        self.maximumThreads = maximumThreads
        self.reservedForSwiftJobs = reservedForSwiftJobs
    }

    var workLimit: Int { maximumThreads - reservedForSwiftJobs }

    /// How many jobs wait for a thread.
    var waitingCount: Int { waitingWork.count + waitingSwiftJobs.count }

    /// Places `job`: on a parked thread, on a new thread, or in the queue; with `mayQueue`
    /// false, refused rather than queued.
    mutating func submit(
        _ job: @escaping WorkerPool.Job, kind: WorkerPool.JobKind, mayQueue: Bool = true
    )
        -> SubmitAction
    {
        let mayRunNow = kind == .swiftJob || busyWithWork < workLimit
        if mayRunNow, let wakeUp = idleThreads.popLast() {
            if kind == .work { busyWithWork += 1 }
            handedOver.append(job, kind)
            return .wake(wakeUp)
        }
        if mayRunNow && threadCount < maximumThreads {
            if kind == .work { busyWithWork += 1 }
            threadCount += 1
            handedOver.append(job, kind)
            return .startThread
        }
        guard mayQueue else { return .refused }
        switch kind {
        case .work: waitingWork.append(job, kind)
        case .swiftJob: waitingSwiftJobs.append(job, kind)
        }
        return .queued
    }

    /// For a thread that finished a job of `kind`: the next job, Swift jobs first, or parking
    /// on `wakeUp`.
    mutating func finished(_ kind: WorkerPool.JobKind, parkingOn wakeUp: DispatchSemaphore) -> Next {
        if kind == .work { busyWithWork -= 1 }
        if let (job, kind) = waitingSwiftJobs.popFirst() { return .run(job, kind) }
        if busyWithWork < workLimit, let (job, kind) = waitingWork.popFirst() {
            busyWithWork += 1
            return .run(job, kind)
        }
        idleThreads.append(wakeUp)
        return .park
    }

    /// For a thread that has just started, or was woken by its semaphore: the job handed to it.
    mutating func takeHandedJob() -> (WorkerPool.Job, WorkerPool.JobKind) {
        guard let handed = handedOver.popFirst() else {
            preconditionFailure("BUG IN TASKIG: a worker thread started or woke with no job handed to it")
        }
        return handed
    }

    /// For a thread whose idle wait timed out: `nil` after removing it from the pool if it is
    /// still idle, or else the job handed to it meanwhile.
    mutating func leaveOrTakeHandedJob(parkedOn wakeUp: DispatchSemaphore) -> (WorkerPool.Job, WorkerPool.JobKind)? {
        guard let index = idleThreads.firstIndex(where: { $0 === wakeUp }) else { return takeHandedJob() }
        idleThreads.remove(at: index)
        threadCount -= 1
        return nil
    }
}

/// A first-in first-out queue of jobs that does not shift its storage on every removal.
struct JobQueue {
    private var storage: [(WorkerPool.Job, WorkerPool.JobKind)?] = []
    private var head = 0

    var count: Int { storage.count - head }

    mutating func append(_ job: @escaping WorkerPool.Job, _ kind: WorkerPool.JobKind) {
        storage.append((job, kind))
    }

    mutating func popFirst() -> (WorkerPool.Job, WorkerPool.JobKind)? {
        guard head < storage.count else { return nil }
        defer {
            storage[head] = nil
            head += 1
            if head == storage.count {
                storage.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= storage.count {
                storage.removeFirst(head)
                head = 0
            }
        }
        return storage[head]
    }
}
