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
}
