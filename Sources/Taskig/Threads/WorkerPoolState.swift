import Dispatch

/// The bookkeeping of ``WorkerPool``: which thread runs what, and what waits. Pure logic,
/// no locks; the pool runs it under its lock and carries out the returned actions outside.
///
/// The rule it keeps: never more than `maximumThreads` threads; at most
/// `maximumThreads - reservedForSwiftJobs` of them run ordinary work at once, so that the jobs
/// of Swift `async` bodies always find a thread even when ordinary work has blocked every
/// other one; whatever finds no thread waits in first-in, first-out order.
///
/// At most `maximumPendingWakes` threads are on their way to a job at once (woken, or
/// starting). A job submitted meanwhile waits in line: a thread that ends its job takes it,
/// and each thread that arrives at its job first hands the next waiting one to another
/// thread. Waking a thread costs a system call and a context switch, a few microseconds, and a
/// burst of short jobs (ten thousand continuations of a future resolved on the main thread)
/// paid that for every job, on as many threads. Passing the hand-off on keeps every waiting
/// job one wake away from a thread, so jobs that block still each get one; the burst only
/// reaches them a few wakes at a time.
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
    let maximumPendingWakes: Int

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

    init(maximumThreads: Int, reservedForSwiftJobs: Int, maximumPendingWakes: Int) {
        precondition(maximumThreads > reservedForSwiftJobs, "the pool needs a thread for ordinary work")
        precondition(maximumPendingWakes > 0, "the pool must be able to wake a thread")
        self.maximumThreads = maximumThreads
        self.reservedForSwiftJobs = reservedForSwiftJobs
        self.maximumPendingWakes = maximumPendingWakes
    }

    var workLimit: Int { maximumThreads - reservedForSwiftJobs }

    /// How many jobs wait for a thread.
    var waitingCount: Int { waitingWork.count + waitingSwiftJobs.count }

    /// How many threads are parked, waiting for a job.
    var idleCount: Int { idleThreads.count }

    /// Places `job`: on a parked thread, on a new thread, or in the queue; with `mayQueue`
    /// false, refused rather than queued when no thread is free for it.
    mutating func submit(
        _ job: WorkerPool.Job, kind: WorkerPool.JobKind, mayQueue: Bool = true
    )
        -> SubmitAction
    {
        let mayRunNow = kind == .swiftJob || busyWithWork < workLimit
        let isFirstInLine = (kind == .work ? waitingWork.count : waitingSwiftJobs.count) == 0
        if mayRunNow && isFirstInLine && handedOver.count < maximumPendingWakes, let action = handOver(job, kind) {
            return action
        }
        guard mayQueue || hasRoomForOneMore(kind) else { return .refused }
        switch kind {
        case .work: waitingWork.append(job, kind)
        case .swiftJob: waitingSwiftJobs.append(job, kind)
        }
        // A job never passes those in line; if a wake is free, it goes to the oldest.
        return passHandOverOn() ?? .queued
    }

    /// Whether a thread is free for one more job of `kind` beyond those waiting, counting the
    /// parked threads and the ones the pool may still start.
    private func hasRoomForOneMore(_ kind: WorkerPool.JobKind) -> Bool {
        let freeThreads = idleThreads.count + maximumThreads - threadCount
        guard freeThreads > waitingCount else { return false }
        return kind == .swiftJob || busyWithWork + waitingWork.count < workLimit
    }

    /// Hands `job` to a parked thread or a new one; `nil`, keeping nothing, when there is neither.
    private mutating func handOver(_ job: WorkerPool.Job, _ kind: WorkerPool.JobKind) -> SubmitAction? {
        let action: SubmitAction
        if let wakeUp = idleThreads.popLast() {
            action = .wake(wakeUp)
        } else if threadCount < maximumThreads {
            threadCount += 1
            action = .startThread
        } else {
            return nil
        }
        if kind == .work { busyWithWork += 1 }
        handedOver.append(job, kind)
        return action
    }

    /// Hands the first waiting job that may run to another thread, if one is free: called as a
    /// thread arrives at its own job, so that a job waiting behind a burst is never more than
    /// one wake from a thread.
    private mutating func passHandOverOn() -> SubmitAction? {
        guard handedOver.count < maximumPendingWakes, !idleThreads.isEmpty || threadCount < maximumThreads else {
            return nil
        }
        if let (job, kind) = waitingSwiftJobs.popFirst() { return handOver(job, kind) }
        if busyWithWork < workLimit, let (job, kind) = waitingWork.popFirst() { return handOver(job, kind) }
        return nil
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

    /// A job handed to a thread, and the hand-off that thread passes on (see ``submit(_:kind:mayQueue:)``).
    typealias HandedJob = (job: WorkerPool.Job, kind: WorkerPool.JobKind, passedOn: SubmitAction?)

    /// For a thread that has just started, or was woken by its semaphore: the job handed to it.
    mutating func takeHandedJob() -> HandedJob {
        guard let (job, kind) = handedOver.popFirst() else {
            preconditionFailure("BUG IN TASKIG: a worker thread started or woke with no job handed to it")
        }
        return (job, kind, passHandOverOn())
    }

    /// For a thread whose idle wait timed out: `nil` after removing it from the pool if it is
    /// still idle, or else the job handed to it meanwhile.
    mutating func leaveOrTakeHandedJob(parkedOn wakeUp: DispatchSemaphore) -> HandedJob? {
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

    mutating func append(_ job: WorkerPool.Job, _ kind: WorkerPool.JobKind) {
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
