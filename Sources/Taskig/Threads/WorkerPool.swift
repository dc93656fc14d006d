import Dispatch
import Foundation

/// Taskig's own threads: at most ``threadLimit`` of them, whatever the load.
///
/// On Linux, Dispatch's global pool adds about one thread per second once its threads block,
/// so work that may block (a collection's lanes, a future's work, a wait that can time out)
/// runs here instead. A job gets a parked thread, or a new one while the pool is under its
/// limit; past the limit, or while one thread per core is already on its way to a job, it
/// waits in a queue, first in, first out. Threads end after ``idleTimeout`` seconds without
/// work, so an idle process keeps none.
///
/// The limit holds because nothing Taskig does needs a second thread to make progress: a
/// blocking wait of global-queue work runs it on the waiting thread when that thread is a
/// worker, and a collection wait on a worker runs one of its lanes itself (see
/// ``RunPlacement`` and ``Batch``). The last ``reservedForSwiftJobs`` threads take only the
/// jobs of `async` bodies (``WorkerTaskExecutor``), which ordinary work may be waiting for.
///
/// Submitting never blocks: it takes the pool's lock for a few instructions, so that a
/// cooperative thread of Swift concurrency may submit. Each parked thread waits on a
/// semaphore of its own, so a job wakes at most one thread.
@usableFromInline
final class WorkerPool: Sendable {
    /// A job for a worker: its code, and the quality of service it runs at (see ``WorkQoS``).
    @usableFromInline
    struct Job: Sendable {
        let body: @Sendable () -> Void
        let qos: WorkQoS

        init(qos: WorkQoS = .default, _ body: @escaping @Sendable () -> Void) {
            self.body = body
            self.qos = qos
        }

        func callAsFunction() {
            body()
        }
    }

    /// Ordinary work, or a job of Swift concurrency, which may use the reserved threads.
    @usableFromInline
    enum JobKind: Sendable {
        case work
        case swiftJob
    }

    /// The most threads Taskig runs: 64, or 4 per core on machines with more than 16 cores.
    ///
    /// 64 leaves room for one collection wait at the default concurrency (50) whose tasks all
    /// block, plus nested and timed waits beside it; 4 per core keeps every core busy on
    /// large machines when a quarter of the threads compute and the rest wait. Rows 3 and 11.
    static var threadLimit: Int { max(64, 4 * ActiveProcessors.count) }

    /// The pool every Taskig wait shares. Four threads are kept for the jobs of `async` bodies,
    /// which ordinary work filling the rest may wait for (SwiftConcurrencyTests'
    /// `asyncClosuresWorkWithBlockingWaitsAndCollections`; the rule: WorkerPoolStateTests). A
    /// thread idle for 2 s ends: longer than the gaps between a program's waits, short enough for
    /// LoadShapeTests' `everyThreadOfTaskigsEndsOnceIdle`.
    @usableFromInline
    static let shared = WorkerPool(
        maximumThreads: threadLimit, reservedForSwiftJobs: 4, maximumPendingWakes: ActiveProcessors.count,
        idleTimeout: 2)

    let idleTimeout: TimeInterval
    private let state: LockedState<WorkerPoolState>

    /// A pool of at most `maximumThreads` threads, at most `maximumPendingWakes` of them on
    /// their way to a job at once (see ``WorkerPoolState``): one per core wakes as many threads
    /// as can run at once.
    init(maximumThreads: Int, reservedForSwiftJobs: Int, maximumPendingWakes: Int, idleTimeout: TimeInterval) {
        self.idleTimeout = idleTimeout
        state = LockedState(
            WorkerPoolState(
                maximumThreads: maximumThreads, reservedForSwiftJobs: reservedForSwiftJobs,
                maximumPendingWakes: maximumPendingWakes))
    }

    /// The pool's threads, the busy and idle ones among them, and the jobs waiting for one:
    /// for the wait report.
    var counts: (threads: Int, busy: Int, idle: Int, queuedJobs: Int, limit: Int) {
        state.withLock { state in
            (
                state.threadCount, state.threadCount - state.idleCount, state.idleCount, state.waitingCount,
                state.maximumThreads
            )
        }
    }

    /// Runs `job` on a worker thread, at `qos`: at once when one may take it, otherwise as soon
    /// as one comes free.
    @usableFromInline
    func submit(_ job: @escaping @Sendable () -> Void, kind: JobKind = .work, qos: WorkQoS = .default) {
        let action = state.withLock { $0.submit(Job(qos: qos, job), kind: kind) }
        carryOut(action)
    }

    /// Runs `job` on a worker thread if a thread is free for it, though it may wait in line
    /// while threads are being woken; returns `false`, keeping nothing, otherwise. For work
    /// the caller can also do itself, and need not wait for: a collection's extra lanes.
    @usableFromInline
    func trySubmit(_ job: @escaping @Sendable () -> Void, qos: WorkQoS = .default) -> Bool {
        let action = state.withLock { $0.submit(Job(qos: qos, job), kind: .work, mayQueue: false) }
        carryOut(action)
        if case .refused = action { return false }
        return true
    }

    private func carryOut(_ action: WorkerPoolState.SubmitAction?) {
        switch action {
        case .wake(let wakeUp)?: wakeUp.signal()
        case .startThread?: startThread()
        case .queued?, .refused?, nil: break
        }
    }

    /// The job handed to this thread, once the hand-off it passes on is carried out.
    private func arrive(at handed: WorkerPoolState.HandedJob?) -> (Job, JobKind)? {
        guard let handed else { return nil }
        carryOut(handed.passedOn)
        return (handed.job, handed.kind)
    }

    /// The stack size of every worker, on every platform: 8 MiB, as the main thread's on macOS
    /// and Linux. A waiter runs the work it waits for in place, so user code that nests waits
    /// runs as deep on a worker as on the thread that started it. (Darwin gives other threads
    /// 512 KiB by default, and Linux the main thread's size, usually 8 MiB.)
    static let stackSize = 8 << 20

    /// Starts a thread for a job handed over; the state has already counted it. The thread
    /// takes the job from the state rather than from its closure, which lives as long as the
    /// thread and would keep the job alive with it.
    private func startThread() {
        let thread = Thread { [self] in work() }
        thread.stackSize = Self.stackSize
        thread.start()
    }

    /// A worker thread's life: the job handed over when it started, then whatever comes,
    /// until it has been idle for ``idleTimeout``.
    ///
    /// The thread has an alternate signal stack of its own, so that a stack overflow in a job
    /// prints Swift's crash report, as on the main thread, rather than killing the process
    /// without a word: the crash handler cannot run on the stack that overflowed.
    private func work() {
        WorkerThread.markCurrent(name: WorkerThread.name)
        let signalStack = Platform.installSignalStack()
        defer { signalStack.map(Platform.removeSignalStack) }
        let wakeUp = DispatchSemaphore(value: 0)
        var next = arrive(at: state.withLock { $0.takeHandedJob() })
        while let kind = Self.run(taking: &next) {
            next = nextJob(after: kind, parkingOn: wakeUp)
        }
    }

    /// Runs the job in `next` and returns its kind, having let go of it: a parked thread that
    /// still held its last job would keep what that job captured (a collection's tasks, say)
    /// alive until the thread's next job, or its idle timeout.
    private static func run(taking next: inout (Job, JobKind)?) -> JobKind? {
        guard let (job, kind) = next.take() else { return nil }
        WorkerThread.runJob(at: job.qos)
        job()
        return kind
    }

    /// A timeout that tries a semaphore without sleeping: Dispatch's `DISPATCH_TIME_NOW`. A
    /// timeout of `.now()` is a time like any other, and waiting for it sleeps in the kernel
    /// until the timer's slack has passed, so a spin made of such tries would never spin.
    private static let immediately = DispatchTime(uptimeNanoseconds: 0)

    /// The next job, or `nil` once the thread has left the pool.
    ///
    /// A parked thread's wait may time out just as a submitter picks it: the lock tells which
    /// happened first. If the thread is still listed as idle, nobody can pick it any more and
    /// it leaves; if not, a job is handed to it and the submitter's signal is on its way, which
    /// it consumes so that the next park does not wake to no job.
    private func nextJob(after kind: JobKind, parkingOn wakeUp: DispatchSemaphore) -> (Job, JobKind)? {
        if case .run(let job, let kind) = state.withLock({ $0.finished(kind, parkingOn: wakeUp) }) {
            return (job, kind)
        }
        // A job often follows within a spin (see ``BriefSpin``): taken awake, it costs no wake-up.
        if BriefSpin.until(
            nanoseconds: BriefSpin.workerNanoseconds, { wakeUp.wait(timeout: Self.immediately) == .success })
            || wakeUp.wait(timeout: .now() + idleTimeout) == .success
        {
            return arrive(at: state.withLock { $0.takeHandedJob() })
        }
        // The hand-off this thread passes on goes out before it waits for its own signal, which
        // its picker sends only once it has left the lock.
        let next = arrive(at: state.withLock { $0.leaveOrTakeHandedJob(parkedOn: wakeUp) })
        if next != nil { wakeUp.wait() }
        return next
    }
}
