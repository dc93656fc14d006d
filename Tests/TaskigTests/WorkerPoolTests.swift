import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Taskig

/// The pool with real threads: a burst that reaches threads a few wakes at a time must still
/// give every job that blocks a thread of its own. Each test makes a pool of its own, so the
/// other suites' work cannot take its threads.
@Suite struct WorkerPoolTests {
    /// Jobs that each block until all of them run at once: a burst that passed its hand-offs
    /// on too slowly, or dropped one, would leave the first ones waiting forever.
    @Test func aBurstOfJobsThatWaitForEachOtherGetsAThreadForEveryJob() async throws {
        let jobCount = 30
        let pool = WorkerPool(
            maximumThreads: jobCount + 4, reservedForSwiftJobs: 4, maximumPendingWakes: 1, idleTimeout: 0.5)
        let elapsed = try await withWatchdog(seconds: 20) {
            let started = Atomic(0)
            let allStarted = DispatchSemaphore(value: 0)
            let finished = DispatchGroup()
            let start = DispatchTime.now()
            for _ in 0..<jobCount {
                finished.enter()
                pool.submit {
                    if started.add(1, ordering: .relaxed).newValue == jobCount {
                        for _ in 0..<jobCount { allStarted.signal() }
                    }
                    allStarted.wait()
                    finished.leave()
                }
            }
            finished.wait()
            return secondsSince(start)
        }
        // A wake takes tens of microseconds; thirty of them one after another take well
        // under a second even on a loaded machine.
        // Beside two busy loops (load 13–25): 0.016–0.026 s debug and on one core (0.48 s once at a
        // load of 25), 0.08–0.10 s ThreadSanitizer; a dropped hand-off hangs.
        if let elapsed { #expect(elapsed < 2 * timingSlack) }
    }

    /// Jobs past what the pool may run at once wait in line, and every one of them runs once
    /// threads come free.
    @Test func jobsPastTheLimitWaitUntilThreadsComeFree() async throws {
        let pool = WorkerPool(maximumThreads: 3, reservedForSwiftJobs: 1, maximumPendingWakes: 1, idleTimeout: 0.5)
        let order = try await withWatchdog(seconds: 10) {
            let ran = LockedValue([Int]())
            let gate = DispatchSemaphore(value: 0)
            let finished = DispatchGroup()
            for blocker in 0..<2 {
                finished.enter()
                pool.submit {
                    gate.wait()
                    ran.update { $0.append(blocker) }
                    finished.leave()
                }
            }
            for number in 2..<12 {
                finished.enter()
                pool.submit {
                    ran.update { $0.append(number) }
                    finished.leave()
                }
            }
            Thread.sleep(forTimeInterval: 0.05)
            let ranWhileBlocked = ran.value
            gate.signal()
            gate.signal()
            finished.wait()
            return (ranWhileBlocked, ran.value)
        }
        guard let (ranWhileBlocked, ran) = order else { return }
        #expect(ranWhileBlocked.isEmpty)
        #expect(ran.sorted() == Array(0..<12))
    }
}
