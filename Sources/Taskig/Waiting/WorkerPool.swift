import Foundation

/// Taskig's own threads, for work that must not wait for Dispatch's global pool.
///
/// On Linux the global pool adds about one thread per second once its threads block, so
/// blocking waits that park global workers can stall for minutes. These threads are
/// started on demand, one per job when none is idle, and end after `idleTimeout` without
/// work.
///
/// Only nesting multiplies threads (a lane whose task runs another collection wait), so
/// the limit applies to jobs whose submitter can run them itself (see ``Admission``): when
/// `maximumThreads` are busy, ``trySubmit(_:admission:)`` refuses such a job, and nested
/// waits keep moving without more threads. Other jobs (those of a top-level caller, whose
/// `concurrency` argument already bounds what it asks for, and those a deadline depends on)
/// always get a thread; past the limit they first wait a moment for a busy thread to come
/// free, since threads finishing a collection's lanes are about to.
///
/// `@unchecked Sendable` is safe here: `jobs`, `threadCount`, `idleCount`, `wakeups` and
/// `waitingSubmitters` are only touched while `condition` is locked.
@usableFromInline
final class WorkerPool: @unchecked Sendable {
    @usableFromInline
    typealias Job = @Sendable () -> Void

    /// The pool every Taskig wait shares.
    @usableFromInline
    static let shared = WorkerPool(maximumThreads: 48, idleTimeout: 2)

    /// How long a job that must get a thread waits for a busy one to come free when the pool
    /// is at its limit, before a new thread is made for it.
    private static let waitForFreeThread: TimeInterval = 0.002

    let maximumThreads: Int
    private let idleTimeout: TimeInterval
    private let condition = NSCondition()
    private var jobs = JobQueue()
    private var threadCount = 0
    private var idleCount = 0
    /// Idle threads that were promised a job but have not woken up yet.
    private var wakeups = 0
    /// Submitters waiting for a thread to come free.
    private var waitingSubmitters = 0

    init(maximumThreads: Int, idleTimeout: TimeInterval) {
        precondition(maximumThreads >= 1, "WorkerPool needs at least one thread")
        self.maximumThreads = maximumThreads
        self.idleTimeout = idleTimeout
    }

    /// Whether a job may be refused at the limit.
    @usableFromInline
    enum Admission: Sendable {
        /// Refused when every thread is busy and the pool is at its limit; the submitter
        /// then runs the job itself, or somewhere else.
        case refusedAtLimit
        /// Always given a thread, above the limit if need be, after waiting a moment for a
        /// busy one to come free.
        case always
        /// Always given a thread at once, above the limit if need be: for submitters that
        /// must not wait, such as Taskig's timer queue, which other timers queue behind.
        case alwaysAtOnce
    }

    /// Hands `job` to a thread that is free to run it at once. Returns `false`, and keeps
    /// nothing, when the job may be refused, every thread is busy and the pool is at its limit.
    @usableFromInline
    func trySubmit(_ job: @escaping Job, admission: Admission) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if idleCount > wakeups {
            wakeups += 1
            jobs.append(job)
            // Submitters may wait on the same condition; a single signal could wake one of them.
            if waitingSubmitters > 0 { condition.broadcast() } else { condition.signal() }
            return true
        }
        if threadCount >= maximumThreads {
            switch admission {
            case .refusedAtLimit: return false
            case .always: if handToThreadComingFree(job) { return true }
            case .alwaysAtOnce: break
            }
        }
        threadCount += 1
        jobs.append(job)
        let thread = Thread { [self] in self.workLoop() }
        thread.name = "taskig.worker"
        thread.start()
        return true
    }

    /// Waits up to ``waitForFreeThread`` for a thread to go idle and hands it `job`.
    /// Called and returns with `condition` locked.
    private func handToThreadComingFree(_ job: @escaping Job) -> Bool {
        let deadline = Date(timeIntervalSinceNow: Self.waitForFreeThread)
        waitingSubmitters += 1
        defer { waitingSubmitters -= 1 }
        while idleCount <= wakeups {
            guard condition.wait(until: deadline) else { break }
        }
        guard idleCount > wakeups else { return false }
        wakeups += 1
        jobs.append(job)
        condition.broadcast()
        return true
    }

    /// The number of threads the pool has now, busy or idle.
    var currentThreadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threadCount
    }

    private func workLoop() {
        WorkerThread.markCurrent()
        condition.lock()
        while true {
            if let job = jobs.popFirst() {
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            idleCount += 1
            if waitingSubmitters > 0 { condition.broadcast() }
            let deadline = Date(timeIntervalSinceNow: idleTimeout)
            var timedOut = false
            while wakeups == 0 && !timedOut {
                timedOut = !condition.wait(until: deadline)
            }
            idleCount -= 1
            if wakeups > 0 {
                wakeups -= 1
            } else if jobs.isEmpty {
                threadCount -= 1
                condition.unlock()
                return
            }
        }
    }
}

/// A first-in first-out queue of jobs that does not shift its storage on every removal.
private struct JobQueue {
    private var storage: [WorkerPool.Job?] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }

    mutating func append(_ job: @escaping WorkerPool.Job) {
        storage.append(job)
    }

    mutating func popFirst() -> WorkerPool.Job? {
        guard head < storage.count else { return nil }
        defer {
            storage[head] = nil
            head += 1
            if head == storage.count {
                storage.removeAll(keepingCapacity: true)
                head = 0
            }
        }
        return storage[head]
    }
}
