import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Taskig

@Suite struct AwaitFirstTests {
    @Test func returnsAsSoonAsTheFirstFinishesAndCancelsTheRest() async throws {
        let observer = RunObserver()
        // The loser sleeps past the watchdog unless the race cancels it: a race that waited for
        // it would fail as hung, far beyond the bound below.
        let slow = ThrowableTask { () -> String in
            observer.sleep(30 * timingSlack)
            return "slow"
        }
        let fastEnded = Moment()
        let fast = ThrowableTask { () -> String in
            // Only once the loser runs, so that there is a running loser to cancel.
            _ = observer.waitUntilStarted()
            sleep(seconds: 0.01)
            fastEnded.note()
            return "fast"
        }
        let (value, seconds) = try #require(
            await withWatchdog { () -> (String, Double?) in (try [slow, fast].awaitFirst(), fastEnded.secondsSince) })
        #expect(value == "fast")
        // From the winner's end (its start waits for the pool, which other tests' work can hold for
        // seconds under ThreadSanitizer), beside two busy loops (load 13–25): 0.3–0.6 ms debug,
        // 0.5–467 ms ThreadSanitizer. Waiting for the loser would take its 30 s (× slack).
        #expect(try #require(seconds) < 0.5 * timingSlack)
        #expect(try await withWatchdog { observer.waitUntilCancellationSeen() } == true, "the loser's run is cancelled")
        #expect(!slow.isCancelled, "the task itself is not")
    }

    @Test func theSameTasksCanRaceAgain() async throws {
        let observer = RunObserver()
        // Cancelled by each race it loses; it would outlast a pool that starts the quick one late.
        let slow = ThrowableTask { () -> String in
            observer.sleep(30 * timingSlack)
            return "slow"
        }
        let fast = ThrowableTask { "fast" }
        let winners = try await withWatchdog { try (0..<3).map { _ in try [slow, fast].awaitFirst(concurrency: 2) } }
        #expect(winners == ["fast", "fast", "fast"])
        #expect(try await withWatchdog { try slow.timeout(0.05).recover { _ in "gave up" }.await() } == "gave up")
    }

    @Test func theFirstToFinishWinsEvenWhenItFailed() async throws {
        @Sendable func racers() -> [ThrowableTask<Int>] {
            // The slow task ends once the race has cancelled it, or after 10 s: the failure is
            // first however late a loaded pool starts either of them.
            let failing = ThrowableTask<Int> { throw TestError(1) }
            let slow = ThrowableTask<Int> {
                RunObserver().sleep(10 * timingSlack)
                return 2
            }
            return [slow, failing]
        }
        let thrown = try await withWatchdog { thrownError { try racers().awaitFirst() } }
        #expect(thrown as? TestError == TestError(1))
        let result = try #require(await withWatchdog { racers().awaitFirstResult() })
        #expect(throws: TestError(1)) { try result.get() }
    }

    /// A race starts every runner at once, up to `concurrency`: the first to finish means
    /// something only when they all run. A batch that is not a race starts one lane per core.
    @Test func aRaceStartsALaneForEveryRunnerAtOnce() throws {
        func lanesAtStart<Sink: BatchSink>(concurrency: Int, sink: Sink) -> Int
        where Sink.Outcome == Result<Int, Error> {
            // Each count has runners of its own, which compute until the lanes are counted (or
            // 10 s): a look adds lanes only beside lanes blocked in a task, and no runner ends
            // before the count, so the count is what the batch started with however late a
            // loaded machine lets this thread read it.
            let counted = Atomic(false)
            let deadline = DispatchTime.now() + 10 * timingSlack
            let tasks = (0..<6).map { _ in
                ThrowableTask<Int> {
                    while !counted.load(ordering: .relaxed) && DispatchTime.now() < deadline {}
                    return 0
                }
            }
            let batch = Batch(
                ThrowingLaneWork<ThrowableTask<Int>>.self, tasks: tasks, lanesOn: .global(), concurrency: concurrency,
                sink: sink,
                operation: "test", site: StaticCallSite(#fileID, #line))
            _ = batch.start(callerMayRunALane: false)
            let lanes = batch.roster.withLock { $0.lanes.count }
            counted.store(true, ordering: .relaxed)
            BlockingWait.value(of: batch.finished) {
                WaitSubject(site: batch.site, target: nil, work: .collection(batch, nextOutcomeOnly: false))
            }
            batch.close()
            return lanes
        }
        #expect(lanesAtStart(concurrency: 50, sink: FirstOutcome(cancelled: nil)) == 6)
        #expect(lanesAtStart(concurrency: 4, sink: FirstSuccess<Int>(count: 6)) == 4)
        #expect(
            lanesAtStart(concurrency: 50, sink: CancellableResultSlots<Int>(count: 6)) == min(6, ActiveProcessors.count)
        )
    }

    @Test func noTasksIsAnEmptySequenceError() throws {
        #expect(isEmptySequence(thrownError { try [ThrowableTask<Int>]().awaitFirst() }))
        guard case .failure(TaskigError.emptySequence) = [ThrowableTask<Int>]().awaitFirstResult() else {
            Issue.record("expected .failure(TaskigError.emptySequence)")
            return
        }
    }

    @Test func plainTasksDoNotThrow() async throws {
        // The first ends only once the race is over (or past the watchdog): the second wins
        // however late a loaded pool starts it.
        let raceIsOver = Gate()
        let tasks = [
            Task { () -> Int in
                raceIsOver.wait(upTo: 30 * timingSlack); return 1
            }, Task { 2 },
        ]
        #expect(try await withWatchdog { tasks.awaitFirst() } == 2)
        raceIsOver.open()
    }

    /// "Cancelling tasks": a runner cancelled for good while a worker runs it ends the race at once, with
    /// the cancellation, without waiting for its body.
    @Test func aRunnerCancelledWhileWorkersRunItReleasesTheCallerAtOnce() async throws {
        let bodies = CancelledWhileRunning()
        let task = ThrowableTask { bodies.body(0) }
        runLater(0) {
            _ = bodies.firstStartedElsewhere()
            task.cancel()
        }
        let result = try #require(
            await withWatchdog { () -> Result<Int, Error> in
                bodies.waitHere()
                return Result { try [task, task].awaitFirst() }
            })
        bodies.letTheOthersReturn()
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result.get() }
    }
}
