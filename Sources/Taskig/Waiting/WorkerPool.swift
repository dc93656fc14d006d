import Dispatch
import Foundation
import Synchronization

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
/// A thread that finishes a job first looks for another for a moment (see
/// ``spinWindowNanoseconds``) before it parks: handing a job to such a thread costs no
/// wake-up, which here takes tens of microseconds, longer than many whole collection waits.
/// At most ``maximumSpinningThreads`` look at once, yielding the processor between looks.
/// A thread whose yield comes back late shares its processor with a busy thread, often
/// the very submitter that would hand it a job, while another processor may be idle: it
/// stops looking, and parks after any job it was handed meanwhile, so that its next wake-up
/// lets the system place it where there is room. Until it runs again, it has not looked
/// for a job lately: submitters then prefer a parked thread, and another thread may look
/// in its place.
///
/// Synchronization: every count and list is in one ``LockedState`` (see ``State``), and each
/// idle thread parks on a semaphore of its own. A submission takes one idle thread off the
/// list under the lock and signals only that thread's semaphore, outside the lock, so each
/// job wakes one thread and no more. Threads are started outside the lock too.
@usableFromInline
final class WorkerPool: Sendable {
    @usableFromInline
    typealias Job = @Sendable () -> Void

    /// The pool every Taskig wait shares.
    @usableFromInline
    static let shared = WorkerPool(maximumThreads: 48, spareThreads: 4, idleTimeout: 2)

    /// How long a job that must get a thread waits for a busy one to come free when the pool
    /// is at its limit, before a new thread is made for it.
    private static let waitForFreeThread = DispatchTimeInterval.milliseconds(2)

    /// How long a thread that finished a job looks for another before it parks.
    private static let spinWindowNanoseconds: UInt64 = 50_000

    let maximumThreads: Int
    /// How many threads above `maximumThreads` jobs admitted ``Admission/atOnceWithinSpareThreads``
    /// may use.
    let spareThreads: Int
    private let idleTimeout: TimeInterval
    private let busyProcessorYield: UInt64
    private let maximumSpinningThreads = max(1, ActiveProcessors.count / 2)
    private let state = LockedState(State())
    /// Counts the jobs handed to spinning threads, so that they can watch for one without
    /// taking the lock.
    private let spinningHandOffs = Atomic(0)
    /// How many spinning threads have no job handed to them yet, as of the last change under
    /// the lock: a hint that lets submitters skip the lock when there are none.
    private let spinningThreadsWithoutJob = Atomic(0)
    /// When a spinning thread last looked for a job, in uptime nanoseconds. A spinning
    /// thread that has not looked for longer than ``busyProcessorYield`` is not running:
    /// a job handed to it would wait until it runs again, however long that takes.
    private let lastLookForWork = Atomic<UInt64>(0)

    /// - Parameter busyProcessorYield: how many nanoseconds one yield of a spinning thread
    ///   may take before the thread takes its processor as busy with another thread.
    init(
        maximumThreads: Int, spareThreads: Int = 0, idleTimeout: TimeInterval, busyProcessorYield: UInt64 = 10_000
    ) {
        precondition(maximumThreads >= 1, "WorkerPool needs at least one thread")
        self.maximumThreads = maximumThreads
        self.spareThreads = spareThreads
        self.idleTimeout = idleTimeout
        self.busyProcessorYield = busyProcessorYield
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
        /// Given a thread at once, above the limit if need be but only up to `spareThreads`
        /// more, and refused past that: for the lanes Taskig's lane ramp adds, which must not
        /// wait and are asked for again later. This keeps a process whose top-level waits
        /// follow each other quickly, while threads of the last one are still on their way
        /// back to the pool, from growing past the limit plus the spares.
        case atOnceWithinSpareThreads
    }

    /// Hands `job` to a thread that is free to run it at once. Returns `false`, and keeps
    /// nothing, when the job may be refused, every thread is busy and the pool is at its limit.
    ///
    /// The decision is taken under the lock; waking the chosen thread, starting a new one or
    /// waiting for one to come free happens after the lock is released.
    @usableFromInline
    func trySubmit(_ job: @escaping Job, admission: Admission) -> Bool {
        let spinnersAreLooking = spinningThreadsAreLooking
        let placement = withState { state in
            state.place(
                job, admission: admission, maximumThreads: maximumThreads, spareThreads: spareThreads,
                spinnersAreLooking: spinnersAreLooking)
        }
        switch placement {
        case .handedToSpinningThread:
            spinningHandOffs.add(1, ordering: .releasing)
        case .handedToIdleThread(let wakeUp):
            wakeUp.signal()
        case .needsNewThread:
            startThread(running: job)
        case .offeredToThreadComingFree(let served):
            handToThreadComingFree(job, served: served)
        case .refused:
            return false
        }
        return true
    }

    /// Whether some thread is looking for work right now, as far as a lock-free look can
    /// tell; ``trySubmitToSpinningThread(_:)`` gives the definite answer.
    @usableFromInline
    var hasThreadLookingForWork: Bool {
        spinningThreadsWithoutJob.load(ordering: .relaxed) > 0 && spinningThreadsAreLooking
    }

    /// Whether a spinning thread looked for a job within the last ``busyProcessorYield``.
    private var spinningThreadsAreLooking: Bool {
        // The look first, then the clock: a look noted in between is not in the future.
        let lastLook = lastLookForWork.load(ordering: .relaxed)
        return DispatchTime.now().uptimeNanoseconds &- lastLook < busyProcessorYield
    }

    /// Runs `body` on the pool's state under its lock, and keeps
    /// ``spinningThreadsWithoutJob`` up to date.
    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLock { state in
            let result = body(&state)
            spinningThreadsWithoutJob.store(state.spinningThreads - state.handedToSpinning.count, ordering: .relaxed)
            return result
        }
    }

    /// Hands `job` to a thread that is looking for work right now, if there is one; this
    /// never wakes or starts a thread. Returns whether a thread took the job.
    @usableFromInline
    func trySubmitToSpinningThread(_ job: @escaping Job) -> Bool {
        guard hasThreadLookingForWork, withState({ state in state.handToSpinningThread(job) }) else { return false }
        spinningHandOffs.add(1, ordering: .releasing)
        return true
    }

    /// Waits up to ``waitForFreeThread`` for a thread finishing its job to take the offer of
    /// `job` that ``State/place(_:admission:maximumThreads:spareThreads:)`` registered; then withdraws the
    /// offer and starts a new thread for the job.
    ///
    /// The offer, not the timing of the wake-up, decides who runs the job: a thread that took
    /// it just as the wait timed out has removed it under the lock, so the withdrawal finds
    /// nothing, and that thread's signal goes to a semaphore nobody waits on any more.
    private func handToThreadComingFree(_ job: @escaping Job, served: DispatchSemaphore) {
        guard served.wait(timeout: .now() + Self.waitForFreeThread) == .timedOut else { return }
        let withdrawn = withState { state in state.withdrawOffer(servedBy: served) }
        if withdrawn { startThread(running: job) }
    }

    /// The number of threads the pool has now, busy or idle.
    var currentThreadCount: Int {
        withState { $0.threadCount }
    }

    /// Starts a thread for `job`; the caller has already counted it in ``State/threadCount``.
    private func startThread(running job: @escaping Job) {
        let thread = Thread { [self] in work(startingWith: job) }
        thread.name = "taskig.worker"
        thread.start()
    }

    /// A worker thread's life: its first job, then whatever ``nextJob(parkingOn:mayLookForWork:)``
    /// gives it.
    private func work(startingWith first: @escaping Job) {
        WorkerThread.markCurrent()
        let wakeUp = DispatchSemaphore(value: 0)
        var job: Job? = first
        var mayLookForWork = true
        while let current = job {
            current()
            (job, mayLookForWork) = nextJob(parkingOn: wakeUp, mayLookForWork: mayLookForWork)
        }
    }

    /// The next job for a thread that has finished one, or `nil` once it has been idle for
    /// `idleTimeout` and has left the pool; and whether the thread may look for work after
    /// that job.
    ///
    /// A submitter waiting for a thread to come free is served first. Otherwise the thread
    /// spins for a moment if few others do and `mayLookForWork`, and then parks on `wakeUp`,
    /// listed as idle. Its wait may time out just as a submitter picks it: the lock tells
    /// which happened first. If the thread is still listed, nobody can pick it any more and
    /// it ends; if not, its job is already handed over and the submitter's signal is on its
    /// way, and it is consumed here so that the next park does not wake to no job.
    ///
    /// A thread whose spin found its processor busy with another thread parks after its
    /// next job instead of spinning: a job handed to it would share that processor, often
    /// with the submitter itself, while another stays idle. Woken from its park, it runs
    /// wherever the system finds room.
    private func nextJob(parkingOn wakeUp: DispatchSemaphore, mayLookForWork: Bool) -> (Job?, Bool) {
        let next = withState { state in
            let next = state.takeOfferSpinOrPark(
                wakeUp, maximumSpinningThreads: mayLookForWork ? maximumSpinningThreads : 0,
                spinnersAreLooking: spinningThreadsAreLooking)
            // A thread about to look counts as looking from now on, so that one finishing a
            // job just after it parks rather than take it for a spinner that stopped running.
            if case .spin = next { lastLookForWork.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed) }
            return next
        }
        switch next {
        case .offer(let offer):
            offer.served.signal()
            return (offer.job, mayLookForWork)
        case .spin:
            let (job, processorWasFree) = spinForJob(thenParkingOn: wakeUp)
            if let job { return (job, processorWasFree) }
        case .park:
            break
        }
        if wakeUp.wait(timeout: .now() + idleTimeout) == .success {
            return (withState { state in state.takeHandedJob() }, true)
        }
        let handed = withState { state in state.leaveOrTakeHandedJob(parkedOn: wakeUp) }
        if handed != nil { wakeUp.wait() }
        return (handed, true)
    }

    /// Looks for a job handed to spinning threads for ``spinWindowNanoseconds`` (see
    /// ``BriefSpin``). Returns the job, or `nil` once the thread is listed as parked
    /// on `wakeUp`; and whether the processor was free of other busy threads meanwhile.
    private func spinForJob(thenParkingOn wakeUp: DispatchSemaphore) -> (Job?, Bool) {
        var handOffsSeen = spinningHandOffs.load(ordering: .acquiring)
        var job: Job?
        let end = BriefSpin.until(
            atMost: Self.spinWindowNanoseconds, yieldLimit: busyProcessorYield
        ) {
            lastLookForWork.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
            let handOffs = spinningHandOffs.load(ordering: .acquiring)
            guard handOffs != handOffsSeen else { return false }
            handOffsSeen = handOffs
            job = withState { state in state.takeJobWhileSpinning() }
            return job != nil
        }
        if end == .done { return (job, true) }
        return (withState { state in state.stopSpinning(parkingOn: wakeUp) }, end != .processorBusy)
    }
}

extension WorkerPool {
    /// The pool's bookkeeping, only ever used under the pool's lock.
    ///
    /// Invariants: ``handedOver`` holds one job for each thread taken from ``idleThreads``
    /// that has not woken up yet, and each such thread takes exactly one; ``handedToSpinning``
    /// never holds more jobs than there are ``spinningThreads``, and each spinning thread
    /// takes one before it stops spinning if there are as many jobs as spinning threads; and
    /// there is never an idle thread and an offer at once, since a thread finishing a job
    /// takes the offers before it spins or parks.
    struct State {
        /// Threads the pool has, busy or idle, including those about to start.
        var threadCount = 0
        /// The semaphores of parked threads, the one parked last at the end. The next job
        /// goes to the thread idle for the shortest time, so the others can reach their idle
        /// timeout when there is less work.
        var idleThreads: [DispatchSemaphore] = []
        /// Jobs handed to threads taken from ``idleThreads`` that have not woken up yet.
        var handedOver = JobQueue()
        /// Offers of jobs from submitters waiting for a thread to come free, oldest first.
        var offers: [Offer] = []
        /// Threads looking for a job before they park.
        var spinningThreads = 0
        /// Jobs handed to spinning threads and not taken yet.
        var handedToSpinning = JobQueue()

        /// Where ``trySubmit(_:admission:)`` places a job.
        mutating func place(
            _ job: @escaping Job,
            admission: Admission,
            maximumThreads: Int,
            spareThreads: Int,
            spinnersAreLooking: Bool
        ) -> Placement {
            if spinnersAreLooking && handToSpinningThread(job) { return .handedToSpinningThread }
            if let wakeUp = idleThreads.popLast() {
                handedOver.append(job)
                return .handedToIdleThread(wakeUp)
            }
            // A spinning thread that is not looking right now takes the job once it runs
            // again, which is no later than a new thread would get to run.
            if handToSpinningThread(job) { return .handedToSpinningThread }
            if threadCount >= maximumThreads {
                switch admission {
                case .refusedAtLimit:
                    return .refused
                case .always:
                    let served = DispatchSemaphore(value: 0)
                    offers.append(Offer(served: served, job: job))
                    return .offeredToThreadComingFree(served)
                case .alwaysAtOnce:
                    break
                case .atOnceWithinSpareThreads:
                    if threadCount >= maximumThreads + spareThreads { return .refused }
                }
            }
            threadCount += 1
            return .needsNewThread
        }

        /// Removes the offer signalled through `served`, if no thread has taken it, and
        /// counts the thread that will run it instead. Returns whether it was still there.
        mutating func withdrawOffer(servedBy served: DispatchSemaphore) -> Bool {
            guard let index = offers.firstIndex(where: { $0.served === served }) else { return false }
            offers.remove(at: index)
            threadCount += 1
            return true
        }

        /// Queues `job` for a spinning thread, if one has no job yet.
        mutating func handToSpinningThread(_ job: @escaping Job) -> Bool {
            guard spinningThreads > handedToSpinning.count else { return false }
            handedToSpinning.append(job)
            return true
        }

        /// For a thread that finished a job: the oldest offer; or else spinning, when fewer
        /// than `maximumSpinningThreads` do, or fewer than twice as many while those that do
        /// are not looking (they are not running, see ``WorkerPool/lastLookForWork``); or else
        /// parking, listed as idle.
        mutating func takeOfferSpinOrPark(
            _ wakeUp: DispatchSemaphore, maximumSpinningThreads: Int, spinnersAreLooking: Bool
        ) -> AfterJob {
            guard offers.isEmpty else { return .offer(offers.removeFirst()) }
            let limit = spinnersAreLooking ? maximumSpinningThreads : 2 * maximumSpinningThreads
            if spinningThreads < limit {
                spinningThreads += 1
                return .spin
            }
            idleThreads.append(wakeUp)
            return .park
        }

        /// For a spinning thread that saw a hand-off: a job, if another spinning thread has
        /// not taken it first.
        mutating func takeJobWhileSpinning() -> Job? {
            guard let job = handedToSpinning.popFirst() else { return nil }
            spinningThreads -= 1
            return job
        }

        /// For a thread whose spinning is over: a job handed to spinning threads that the
        /// others cannot all take, or `nil` after listing the thread as idle.
        mutating func stopSpinning(parkingOn wakeUp: DispatchSemaphore) -> Job? {
            spinningThreads -= 1
            if handedToSpinning.count > spinningThreads { return handedToSpinning.popFirst() }
            idleThreads.append(wakeUp)
            return nil
        }

        /// For a thread woken by its semaphore: the job handed to it.
        mutating func takeHandedJob() -> Job {
            guard let job = handedOver.popFirst() else {
                preconditionFailure("BUG IN TASKIG: a worker thread was woken with no job handed to it")
            }
            return job
        }

        /// For a thread whose idle wait timed out: `nil` after removing it from the pool if it
        /// is still idle, or else the job handed to it meanwhile.
        mutating func leaveOrTakeHandedJob(parkedOn wakeUp: DispatchSemaphore) -> Job? {
            guard let index = idleThreads.firstIndex(where: { $0 === wakeUp }) else { return takeHandedJob() }
            idleThreads.remove(at: index)
            threadCount -= 1
            return nil
        }
    }

    /// What a thread that finished a job does next.
    enum AfterJob {
        /// Run the job of a submitter waiting for a thread to come free, and signal it.
        case offer(Offer)
        /// Look for a job for a moment.
        case spin
        /// Park, listed as idle.
        case park
    }

    /// What ``trySubmit(_:admission:)`` does after the lock is released.
    enum Placement {
        /// Nothing: a spinning thread will see the job.
        case handedToSpinningThread
        /// Signal the semaphore of the idle thread the job was handed to.
        case handedToIdleThread(DispatchSemaphore)
        /// Start a thread for the job, already counted.
        case needsNewThread
        /// Wait for a thread finishing its job to take the offer, signalling the semaphore.
        case offeredToThreadComingFree(DispatchSemaphore)
        /// Give the job back to the submitter.
        case refused
    }

    /// A job waiting for a busy thread to come free; the thread that takes it signals `served`.
    struct Offer {
        let served: DispatchSemaphore
        let job: Job
    }
}

/// A first-in first-out queue of jobs that does not shift its storage on every removal.
struct JobQueue {
    private var storage: [WorkerPool.Job?] = []
    private var head = 0

    var count: Int { storage.count - head }

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
