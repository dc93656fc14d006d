import Dispatch
import Testing

@testable import Taskig

@Suite struct WorkerPoolTests {
    @Test func runsBlockingJobsAtOnceAndRefusesRefusableJobsBeyondItsLimit() throws {
        let pool = WorkerPool(maximumThreads: 3, idleTimeout: 1)
        let release = DispatchSemaphore(value: 0)
        let probe = ConcurrencyProbe()
        let finished = DispatchGroup()
        let nestedAccepted = LockedValue<Bool?>(nil)
        for job in 0..<3 {
            finished.enter()
            let accepted = pool.trySubmit(
                {
                    if job == 0 {
                        let deadline = DispatchTime.now() + 5
                        while probe.current < 2 && DispatchTime.now() < deadline { sleep(seconds: 0.005) }
                        nestedAccepted.set(pool.trySubmit({}, admission: .refusedAtLimit))
                    }
                    probe.measure { release.wait() }
                    finished.leave()
                }, admission: .refusedAtLimit)
            #expect(accepted)
        }
        let deadline = DispatchTime.now() + 5
        while probe.current < 3 && DispatchTime.now() < deadline { sleep(seconds: 0.005) }
        #expect(probe.peak == 3)
        #expect(nestedAccepted.value == false, "a full pool refuses a refusable job, so its submitter runs it")
        finished.enter()
        let acceptedAboveLimit = pool.trySubmit({ finished.leave() }, admission: .always)
        #expect(acceptedAboveLimit, "other jobs always get a thread")
        for _ in 0..<3 { release.signal() }
        #expect(finished.wait(timeout: .now() + 5) == .success)
    }

    @Test func reusesIdleThreadsAndLetsThemGo() throws {
        let pool = WorkerPool(maximumThreads: 4, idleTimeout: 0.2)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<20 {
            let accepted = pool.trySubmit({ done.signal() }, admission: .refusedAtLimit)
            #expect(accepted)
            #expect(done.wait(timeout: .now() + 5) == .success)
            sleep(seconds: 0.002)
        }
        #expect(pool.currentThreadCount <= 2, "an idle worker takes the next job")
        let deadline = DispatchTime.now() + 5
        while pool.currentThreadCount > 0 && DispatchTime.now() < deadline { sleep(seconds: 0.02) }
        #expect(pool.currentThreadCount == 0)
    }

    /// Threads whose idle wait times out just as a job is handed to them must run that job,
    /// and threads that leave must be counted out exactly once.
    @Test func idleTimeoutsRacingSubmissionsLoseNoJobAndNoThread() async throws {
        let pool = WorkerPool(maximumThreads: 4, idleTimeout: 0.000_5)
        let runs = LockedValue(0)
        let jobs = 600
        let finished = try await withWatchdog(seconds: 30) {
            let done = DispatchGroup()
            for job in 0..<jobs {
                done.enter()
                let work: WorkerPool.Job = {
                    runs.update { $0 += 1 }
                    done.leave()
                }
                if !pool.trySubmit(work, admission: .refusedAtLimit) { work() }
                // Around the idle timeout, so that submissions meet threads timing out.
                if job % 3 == 0 { sleep(seconds: Double(job % 7) * 0.000_15) }
            }
            return done.wait(timeout: .now() + 20) == .success
        }
        #expect(finished == true)
        #expect(runs.value == jobs)
        let deadline = DispatchTime.now() + 5
        while pool.currentThreadCount > 0 && DispatchTime.now() < deadline { sleep(seconds: 0.01) }
        #expect(pool.currentThreadCount == 0)
    }

    /// A job waiting for a thread to come free runs exactly once, whether the busy thread
    /// takes it as it finishes or the wait times out and a new thread is made, even when both
    /// happen at the same moment.
    @Test func jobsWaitingForAFreeThreadRunExactlyOnce() async throws {
        let pool = WorkerPool(maximumThreads: 1, idleTimeout: 0.001)
        let rounds = 200
        let runs = LockedValue([Int](repeating: 0, count: rounds))
        let finished = try await withWatchdog(seconds: 30) {
            for round in 0..<rounds {
                // Each round starts with no thread, so the pool is at its limit once the busy
                // job runs, and the next job has to wait for it.
                let deadline = DispatchTime.now() + 1
                while pool.currentThreadCount > 0 && DispatchTime.now() < deadline { sleep(seconds: 0.000_5) }
                let busyStarted = DispatchSemaphore(value: 0)
                // Busy for about the 2 ms the waiting job waits, give or take.
                let busyFor = 0.0018 + Double(round % 9) * 0.000_05
                _ = pool.trySubmit(
                    {
                        busyStarted.signal()
                        sleep(seconds: busyFor)
                    }, admission: .alwaysAtOnce)
                busyStarted.wait()
                let done = DispatchSemaphore(value: 0)
                let accepted = pool.trySubmit(
                    {
                        runs.update { $0[round] += 1 }
                        done.signal()
                    }, admission: .always)
                guard accepted, done.wait(timeout: .now() + 5) == .success else { return false }
            }
            return true
        }
        #expect(finished == true)
        // A job run twice would show here once the pool has settled.
        sleep(seconds: 0.05)
        #expect(runs.value.allSatisfy { $0 == 1 })
    }
    @Test func aThreadThatJustFinishedAJobTakesTheNextWithoutBeingWoken() async throws {
        // A busy machine (the suite runs tests side by side) can keep the thread off its
        // processor long enough that it would stop looking; this test is about the hand-off.
        let pool = WorkerPool(maximumThreads: 2, idleTimeout: 60, busyProcessorYield: 1_000_000_000)
        let outcome = try await withWatchdog { () -> (refusedWhenNoneSpins: Bool, takenBySpinner: Bool) in
            let refusedWhenNoneSpins = !pool.trySubmitToSpinningThread({})
            // The hand-off must land in the short window after a job ends; a busy machine may
            // keep this thread from trying in time, so it gets several chances.
            for _ in 0..<50 {
                let done = DispatchSemaphore(value: 0)
                _ = pool.trySubmit({ done.signal() }, admission: .alwaysAtOnce)
                done.wait()
                let ran = DispatchSemaphore(value: 0)
                let start = DispatchTime.now()
                while secondsSince(start) < 0.001 {
                    if pool.trySubmitToSpinningThread({ ran.signal() }) {
                        ran.wait()
                        return (refusedWhenNoneSpins, true)
                    }
                }
                sleep(seconds: 0.001)
            }
            return (refusedWhenNoneSpins, false)
        }
        #expect(outcome?.refusedWhenNoneSpins == true, "a fresh pool has no thread looking for work")
        #expect(outcome?.takenBySpinner == true)
        #expect(pool.currentThreadCount == 1, "the job went to the thread that was already there")
    }

    @Test func jobsHandedToThreadsThatFindTheirProcessorBusyRunExactlyOnce() async throws {
        // With no time allowed for a yield, every spin ends as if the processor were busy:
        // a hand-off that lands just then must still run.
        let pool = WorkerPool(maximumThreads: 2, idleTimeout: 60, busyProcessorYield: 0)
        let runs = LockedValue<[Int]>(Array(repeating: 0, count: 400))
        let finished = DispatchGroup()
        let allRan = try await withWatchdog { () -> Bool in
            for job in 0..<400 {
                finished.enter()
                let work: WorkerPool.Job = {
                    runs.update { $0[job] += 1 }
                    finished.leave()
                }
                if !pool.trySubmitToSpinningThread(work) {
                    #expect(pool.trySubmit(work, admission: .always))
                }
            }
            return finished.wait(timeout: .now() + 10 * timingSlack) == .success
        }
        #expect(allRan == true)
        sleep(seconds: 0.01)
        #expect(runs.value.allSatisfy { $0 == 1 })
    }

    @Test func spinningThreadsThatStoppedLookingGetNoJobsAndDoNotHoldTheirPlace() {
        var state = WorkerPool.State()
        let first = DispatchSemaphore(value: 0)
        let second = DispatchSemaphore(value: 0)
        state.threadCount = 2
        guard case .spin = state.takeOfferSpinOrPark(first, maximumSpinningThreads: 1, spinnersAreLooking: false)
        else {
            Issue.record("a thread that finished a job looks for the next when nobody else does")
            return
        }
        if case .spin = state.takeOfferSpinOrPark(second, maximumSpinningThreads: 1, spinnersAreLooking: true) {
            Issue.record("while the spinning thread looks, a second one parks")
        }
        // The second thread parked; a job goes to it rather than to a spinning thread that is
        // not looking (not running, so it would take the job only whenever it runs again).
        guard
            case .handedToIdleThread(let woken) = state.place(
                {}, admission: .refusedAtLimit, maximumThreads: 2, spareThreads: 0, spinnersAreLooking: false)
        else {
            Issue.record("a job went to a spinning thread that was not looking")
            return
        }
        #expect(woken === second)
        // Once it has run that job, it may look for work in place of the one that stopped.
        _ = state.takeHandedJob()
        guard case .spin = state.takeOfferSpinOrPark(second, maximumSpinningThreads: 1, spinnersAreLooking: false)
        else {
            Issue.record("a spinning thread that stopped looking kept its place")
            return
        }
        let takenWhileLooking = state.goesToASpinningThread(whileSpinnersAreLooking: true)
        #expect(takenWhileLooking, "a job goes to a spinning thread that is looking")
        // With no thread parked, a spinning thread that is not looking still takes a job,
        // rather than the pool refusing it or starting a thread.
        _ = state.takeJobWhileSpinning()
        let takenWhileNotLooking = state.goesToASpinningThread(whileSpinnersAreLooking: false)
        #expect(takenWhileNotLooking)
        // However long the spinning threads go without looking, no more than twice the
        // limit spin.
        let third = DispatchSemaphore(value: 0)
        state.threadCount = 3
        _ = state.takeJobWhileSpinning()
        for thread in [first, second] {
            _ = state.takeOfferSpinOrPark(thread, maximumSpinningThreads: 1, spinnersAreLooking: false)
        }
        #expect(state.spinningThreads == 2)
        if case .spin = state.takeOfferSpinOrPark(third, maximumSpinningThreads: 1, spinnersAreLooking: false) {
            Issue.record("a third thread spun beside two that were not looking")
        }
    }

    @Test func spareThreadsBoundTheRampsLanes() async throws {
        let pool = WorkerPool(maximumThreads: 1, spareThreads: 1, idleTimeout: 1)
        let release = DispatchSemaphore(value: 0)
        let accepted = try await withWatchdog { () -> [Bool] in
            let jobs = (0..<3).map { _ in pool.trySubmit({ release.wait() }, admission: .atOnceWithinSpareThreads) }
            let mustRun = pool.trySubmit({ release.wait() }, admission: .alwaysAtOnce)
            let accepted = jobs + [mustRun]
            for wasAccepted in accepted where wasAccepted { release.signal() }
            return accepted
        }
        #expect(accepted == [true, true, false, true])
    }
}

extension WorkerPool.State {
    /// Places a job in a pool of two threads and says whether a spinning thread got it.
    fileprivate mutating func goesToASpinningThread(whileSpinnersAreLooking looking: Bool) -> Bool {
        let placement = place(
            {}, admission: .refusedAtLimit, maximumThreads: 2, spareThreads: 0, spinnersAreLooking: looking)
        if case .handedToSpinningThread = placement { return true }
        return false
    }
}
