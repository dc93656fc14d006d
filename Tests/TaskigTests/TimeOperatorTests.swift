import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct TimeOperatorTests {
    @Test func delayWaitsWithoutAThread() async throws {
        let (_, seconds) = try #require(await withWatchdog { try timed { try ThrowableTask.delay(0.1).await() } })
        // Beside two busy loops (load 13–25): 0.107–0.183 s debug, 0.112–0.19 s on one core, 0.101 s
        // ThreadSanitizer; a delay that never fired would hang.
        #expect(seconds >= 0.09)
        #expect(seconds < 1 * timingSlack)
        // A negative delay taken for its size would be a minute, past the watchdog.
        let (_, immediate) = try #require(await withWatchdog { try timed { try ThrowableTask.delay(-60).await() } })
        // Beside two busy loops (load 13–25): 18–46 µs debug and on one core, 0.1–8 ms ThreadSanitizer.
        #expect(immediate < 0.5 * timingSlack)
    }

    @Test func cancellingADelayReleasesItsWaiters() async throws {
        // Past the watchdog, had the cancellation not released the wait.
        let delay = ThrowableTask.delay(30 * timingSlack)
        runLater(0.05) { delay.cancel() }
        let (result, seconds) = try #require(await withWatchdog { timed { delay.awaitResult() } })
        // Beside two busy loops (load 13–25): 0.052–0.062 s debug, 0.056–0.058 s on one core, 0.039–0.052 s
        // ThreadSanitizer (the cancel comes at 0.05 s).
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result.get() }
        #expect(seconds < 1 * timingSlack)
    }

    @Test func timeoutFailsSlowRunsAndCancelsThem() async throws {
        let observer = RunObserver()
        let slow = ThrowableTask { () -> Int in
            observer.sleep(30) ? 1 : -1
        }
        // A run given up before it got a thread never starts: ThreadSanitizer gets slack.
        let (result, seconds) = try #require(
            await withWatchdog { timed { slow.timeout(0.1 * timingSlack).awaitResult() } })
        // Beside two busy loops (load 13–25): 0.100–0.107 s debug, 0.106–0.172 s on one core, 1.01–1.11 s
        // ThreadSanitizer (whose timeout is 1 s); a timeout that never fired would wait 30 s.
        #expect(isTimedOut(result.failure))
        #expect(seconds >= 0.09)
        #expect(seconds < 1 * timingSlack)
        // A run can have had no thread before the wait gave up (under ThreadSanitizer, or on one
        // core beside the million-link chain): then it never starts, and there is nothing to
        // cancel. `runs` is read first: a run that never starts would otherwise be waited for
        // as long as the watchdog waits, and the check would report a hang.
        #expect(
            try await withWatchdog { observer.runs == 0 || observer.waitUntilCancellationSeen() } == true,
            "a run that started is cancelled")
        #expect(!slow.isCancelled, "the task itself is not")
        #expect(try await withWatchdog { try ThrowableTask { 3 }.timeout(2 * timingSlack).await() } == 3)
        #expect(isTimedOut(synchronously { ThrowableTask { 3 }.timeout(-1).awaitResult() }.failure))
    }

    @Test func timeoutsOnEveryTaskOfAWideCollectionDoNotStarveThePool() async throws {
        // With every worker a lane that waits with a deadline, the tasks' runs went to the
        // pool's queue and waited there past every deadline: each 1 ms task failed after 3 s.
        let tasks = (0..<200).map { index in
            ThrowableTask { () -> Int in
                usleep(1000)
                return index
            }.timeout(3 * timingSlack)
        }
        let (values, seconds) = try #require(
            await withWatchdog { try timed { try tasks.awaitAll(concurrency: 100) } })
        // Beside two busy loops (load 13–25): 0.06–0.10 s debug, 0.12–0.13 s on one core, 0.08–0.70 s
        // ThreadSanitizer; starved runs failed their 3 s (× slack) timeouts.
        #expect(values == Array(0..<200))
        #expect(seconds < 2 * timingSlack)
    }

    @Test func timedWaitsNestedInAsManyRunsAsThereAreWorkersFinish() async throws {
        let outer = (0..<100).map { index in
            ThrowableTask { () -> Int in
                try ThrowableTask { () -> Int in
                    usleep(10_000)
                    return index
                }.await(timeout: 3 * timingSlack)
            }.start()
        }
        let (values, seconds) = try #require(await withWatchdog { try timed { try outer.map { try $0.await() } } })
        // Beside two busy loops (load 13–25): 0.04–0.05 s debug, 0.03–0.06 s on one core, under 0.03 s
        // ThreadSanitizer; starved runs failed their 3 s (× slack) timeouts.
        #expect(values == Array(0..<100))
        #expect(seconds < 2 * timingSlack)
    }

    @Test func aTimeoutUnderARetryMakesARunPerAttempt() async throws {
        let runs = LockedValue(0)
        let slowOnce = ThrowableTask { () -> Int in
            let run = runs.update {
                $0 += 1; return $0
            }
            if run == 1 { _ = RunObserver().sleep(30) }
            return run
        }
        // Each run waits for a worker like any other, and a run given up before it started
        // never starts: under ThreadSanitizer with busy loops beside the stress suites, which
        // keep the pool at its limit, a run once took over a second to get one.
        let value = try await withWatchdog { try slowOnce.timeout(0.5 * timingSlack).retry(3, delay: 0.02).await() }
        #expect(value == 2, "the first run timed out, the second one was quick")
        let alwaysSlow = ThrowableTask { () -> Int in
            runs.update { $0 += 1 }
            _ = RunObserver().sleep(30)
            return 0
        }
        runs.set(0)
        // The timeout leaves each run time to get a worker, as above; the body stops within
        // 5 ms of its run's cancellation.
        let result = try #require(
            await withWatchdog(seconds: 30) { alwaysSlow.timeout(0.5 * timingSlack).retry(3).awaitResult() })
        #expect(isTimedOut(result.failure))
        #expect(runs.value == 3, "three runs, each given up on")
    }

    @Test func retryCountsItsAttemptsAndStopsAtTheFirstSuccess() async throws {
        let runs = LockedValue(0)
        let flaky = ThrowableTask { () -> String in
            let run = runs.update {
                $0 += 1; return $0
            }
            if run < 3 { throw TestError(run) }
            return "ok on \(run)"
        }
        #expect(try await withWatchdog { try flaky.retry(5).await() } == "ok on 3")
        #expect(runs.value == 3)
    }

    @Test func retryWithAPredicateStopsAtTheFirstErrorItTurnsDown() async throws {
        let runs = LockedValue(0)
        let failing = ThrowableTask<Int> {
            throw TestError(
                runs.update {
                    $0 += 1; return $0
                })
        }
        let onlyFirstTwo = failing.retry(5, if: { ($0 as? TestError)?.id ?? 0 < 2 })
        let result = try #require(await withWatchdog { onlyFirstTwo.awaitResult() })
        #expect(throws: TestError(2)) { try result.get() }
        #expect(runs.value == 2, "the second error is turned down, so there is no third run")
    }

    @Test func retryWithAPredicateRetriesWhatItAccepts() async throws {
        let runs = LockedValue(0)
        let flaky = ThrowableTask { () -> String in
            let run = runs.update {
                $0 += 1; return $0
            }
            if run < 3 { throw TaskigError.timedOut }
            return "ok on \(run)"
        }
        let retried = flaky.retry(5, delay: 0.01, if: { if case TaskigError.timedOut = $0 { true } else { false } })
        #expect(try await withWatchdog { try retried.await() } == "ok on 3")
        #expect(runs.value == 3)
    }

    @Test func retryFailsWithTheLastErrorAfterAllAttemptsWithBackoff() async throws {
        let runs = LockedValue(0)
        let failing = ThrowableTask<Int> {
            throw TestError(
                runs.update {
                    $0 += 1; return $0
                })
        }
        let (result, seconds) = try #require(
            await withWatchdog { timed { failing.retry(3, delay: 0.05).awaitResult() } })
        #expect(throws: TestError(3)) { try result.get() }
        #expect(runs.value == 3)
        // Beside two busy loops (load 13–25): 0.165–0.278 s debug, 0.161–0.269 s on one core, 0.163–0.170 s
        // ThreadSanitizer.
        #expect(seconds >= 0.14, "waits 0.05 s, then 0.1 s")
        #expect(seconds < 2 * timingSlack)
    }

    @Test func retryStopsAtCancellation() async throws {
        let runs = LockedValue(0)
        let firstRun = DispatchSemaphore(value: 0)
        let cancelled = Gate()
        // The first run fails only once the retry is cancelled, so that its backoff starts after
        // the cancellation however late the test thread gets to it: a second run is the bug's.
        let failing = ThrowableTask<Int> {
            let run = runs.update {
                $0 += 1; return $0
            }
            if run == 1 {
                firstRun.signal()
                cancelled.wait(upTo: 10 * timingSlack)
            }
            throw TestError(run)
        }
        let retrying = failing.retry(10, delay: 0.2)
        let outcome = try await withWatchdog { () -> Result<Int, Error>? in
            let future = retrying.start()
            guard firstRun.wait(timeout: .now() + 10 * timingSlack) == .success else { return nil }
            retrying.cancel()
            cancelled.open()
            let result = future.awaitResult()
            sleep(seconds: 0.5)  // past the backoff: a second run would have started by now
            return result
        }
        #expect(throws: CancellableTaskError.taskWasCancelled) { try outcome??.get() }
        #expect(runs.value == 1)
    }
}
