import Dispatch
import Synchronization
import Testing

@testable import Taskig

/// The thread bound as a pure state machine: which submission starts a thread, wakes one,
/// waits in line or is refused, and what a thread does when its job ends. No thread runs here.
@Suite struct WorkerPoolStateTests {
    /// Jobs that note their number when run, so that the order they come out in can be checked.
    final class Ledger: Sendable {
        private let ran = LockedState([Int]())

        func job(_ number: Int) -> WorkerPool.Job {
            WorkerPool.Job { self.ran.withLock { $0.append(number) } }
        }

        var order: [Int] { ran.withLock { $0 } }
    }

    private func isStart(_ action: WorkerPoolState.SubmitAction) -> Bool {
        if case .startThread = action { return true }
        return false
    }

    private func isQueued(_ action: WorkerPoolState.SubmitAction) -> Bool {
        if case .queued = action { return true }
        return false
    }

    private func isRefused(_ action: WorkerPoolState.SubmitAction) -> Bool {
        if case .refused = action { return true }
        return false
    }

    /// Runs the job `next` hands out, if any, and returns its kind.
    private func run(_ next: WorkerPoolState.Next) -> WorkerPool.JobKind? {
        guard case .run(let job, let kind) = next else { return nil }
        job()
        return kind
    }

    @Test func ordinaryWorkStartsThreadsUpToTheLimitLessTheReserveThenWaitsInLine() {
        var state = WorkerPoolState(maximumThreads: 6, reservedForSwiftJobs: 2, maximumPendingWakes: 64)
        let ledger = Ledger()
        let actions = (0..<10).map { state.submit(ledger.job($0), kind: .work) }
        #expect(actions.prefix(4).allSatisfy(isStart))
        #expect(actions.dropFirst(4).allSatisfy(isQueued))
        #expect(state.threadCount == 4)
        #expect(state.busyWithWork == 4)
        #expect(state.waitingCount == 6)
    }

    @Test func swiftJobsUseTheReserveAndNothingGoesPastTheLimit() {
        var state = WorkerPoolState(maximumThreads: 6, reservedForSwiftJobs: 2, maximumPendingWakes: 64)
        let ledger = Ledger()
        for i in 0..<4 { _ = state.submit(ledger.job(i), kind: .work) }
        #expect(isStart(state.submit(ledger.job(10), kind: .swiftJob)))
        #expect(isStart(state.submit(ledger.job(11), kind: .swiftJob)))
        #expect(isQueued(state.submit(ledger.job(12), kind: .swiftJob)))
        #expect(isQueued(state.submit(ledger.job(13), kind: .work)))
        #expect(state.threadCount == 6)
    }

    @Test func aSubmissionThatMayNotWaitIsRefusedAtTheLimit() {
        var state = WorkerPoolState(maximumThreads: 3, reservedForSwiftJobs: 1, maximumPendingWakes: 64)
        let ledger = Ledger()
        #expect(isStart(state.submit(ledger.job(0), kind: .work, mayQueue: false)))
        #expect(isStart(state.submit(ledger.job(1), kind: .work, mayQueue: false)))
        // A third job of ordinary work is refused: one thread is kept for Swift jobs.
        #expect(isRefused(state.submit(ledger.job(2), kind: .work, mayQueue: false)))
        #expect(state.waitingCount == 0)
    }

    @Test func aThreadWhoseJobEndedTakesWaitingSwiftJobsFirstThenWorkInOrder() {
        var state = WorkerPoolState(maximumThreads: 3, reservedForSwiftJobs: 1, maximumPendingWakes: 64)
        let ledger = Ledger()
        for i in 0..<2 { _ = state.submit(ledger.job(i), kind: .work) }
        for i in 2..<5 { _ = state.submit(ledger.job(i), kind: .work) }
        _ = state.submit(ledger.job(100), kind: .swiftJob)
        _ = state.submit(ledger.job(101), kind: .swiftJob)
        let wakeUp = DispatchSemaphore(value: 0)
        // The reserved thread runs 100. Job 0 ends; from then on its thread runs, in turn, every
        // job that waits, Swift's first, each taken as the one before it ends.
        var ended = WorkerPool.JobKind.work
        while let kind = run(state.finished(ended, parkingOn: wakeUp)) { ended = kind }
        #expect(ledger.order == [101, 2, 3, 4])
        #expect(state.busyWithWork == 1)
        #expect(state.waitingCount == 0)
    }

    @Test func anIdleThreadIsWokenWithItsJobOrLeavesWhenNothingCame() {
        var state = WorkerPoolState(maximumThreads: 4, reservedForSwiftJobs: 1, maximumPendingWakes: 64)
        let ledger = Ledger()
        #expect(isStart(state.submit(ledger.job(0), kind: .work)))
        // The new thread takes its first job from the state, as a woken thread does.
        let first = state.takeHandedJob().job
        first()
        let wakeUp = DispatchSemaphore(value: 0)
        guard case .park = state.finished(.work, parkingOn: wakeUp) else {
            Issue.record("with nothing waiting, the thread must park")
            return
        }
        guard case .wake(let woken) = state.submit(ledger.job(1), kind: .work) else {
            Issue.record("a parked thread must be woken rather than a new one started")
            return
        }
        #expect(woken === wakeUp)
        // Its idle time ran out just as it was woken: it takes the job rather than leave.
        guard let job = state.leaveOrTakeHandedJob(parkedOn: wakeUp)?.job else {
            Issue.record("a woken thread must take the job handed to it")
            return
        }
        job()
        #expect(ledger.order == [0, 1])
        guard case .park = state.finished(.work, parkingOn: wakeUp) else {
            Issue.record("with nothing waiting, the thread must park")
            return
        }
        #expect(state.leaveOrTakeHandedJob(parkedOn: wakeUp) == nil)
        #expect(state.threadCount == 0)
    }

    @Test func whileThreadsAreOnTheirWayToJobsMoreJobsWaitAndEachArrivalPassesOneOn() {
        var state = WorkerPoolState(maximumThreads: 10, reservedForSwiftJobs: 1, maximumPendingWakes: 2)
        let ledger = Ledger()
        let actions = (0..<6).map { state.submit(ledger.job($0), kind: .work) }
        #expect(actions.prefix(2).allSatisfy(isStart))
        #expect(actions.dropFirst(2).allSatisfy(isQueued))
        #expect(state.threadCount == 2)
        #expect(state.waitingCount == 4)
        // Each thread that reaches its job hands the next waiting one to another thread, in
        // order, so that a job that blocks never holds back those behind it for long.
        var arrivals: [Int] = []
        for _ in 0..<6 {
            let handed = state.takeHandedJob()
            handed.job()
            arrivals.append(state.waitingCount)
            if let passedOn = handed.passedOn { #expect(isStart(passedOn)) }
        }
        #expect(ledger.order == [0, 1, 2, 3, 4, 5])
        #expect(arrivals == [3, 2, 1, 0, 0, 0])
        #expect(state.threadCount == 6)
        #expect(state.busyWithWork == 6)
    }

    @Test func aSubmissionThatMayNotWaitWaitsBehindPendingWakesOnlyWhileAThreadIsFreeForIt() {
        var state = WorkerPoolState(maximumThreads: 4, reservedForSwiftJobs: 1, maximumPendingWakes: 1)
        let ledger = Ledger()
        #expect(isStart(state.submit(ledger.job(0), kind: .work, mayQueue: false)))
        #expect(isQueued(state.submit(ledger.job(1), kind: .work, mayQueue: false)))
        #expect(isQueued(state.submit(ledger.job(2), kind: .work, mayQueue: false)))
        // Three threads may run ordinary work: one has its job, two are spoken for, so a fourth
        // job is refused rather than left waiting.
        #expect(isRefused(state.submit(ledger.job(3), kind: .work, mayQueue: false)))
        #expect(state.waitingCount == 2)
    }

    @Test func aSwiftJobWaitingBehindPendingWakesIsPassedOnBeforeWork() {
        var state = WorkerPoolState(maximumThreads: 8, reservedForSwiftJobs: 2, maximumPendingWakes: 1)
        let ledger = Ledger()
        _ = state.submit(ledger.job(0), kind: .work)
        #expect(isQueued(state.submit(ledger.job(1), kind: .work)))
        #expect(isQueued(state.submit(ledger.job(100), kind: .swiftJob)))
        state.takeHandedJob().job()
        state.takeHandedJob().job()
        state.takeHandedJob().job()
        #expect(ledger.order == [0, 100, 1])
    }
}
