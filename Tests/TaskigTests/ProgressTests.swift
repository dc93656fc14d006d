import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct ProgressTests {
    /// How soon a wait ends, against bodies that would run 30 s (× slack) unless cancelled.
    /// Foundation calls a progress's cancellation handler from Dispatch's global queue, whose
    /// threads other tests can hold for a second or more when they all share one core. From
    /// its start to its end, cancel included, beside two busy loops (load 13–25): 8–117 ms in
    /// a debug build and on one core, 5 ms–2.0 s under ThreadSanitizer.
    private let progressCancelBound = 3 * timingSlack

    /// `count` tasks that each sleep `seconds` and return their index.
    /// Cancels `progress`, from another thread, once every one of `observers` runs and at least
    /// `settled` tasks have settled: a run whose lane had no thread yet when the wait ended
    /// never starts, and a task whose run is cancelled before it settles reports the
    /// cancellation. The progress shows a wait's first settled task at once.
    private func cancel(_ progress: Progress, onceRunning observers: [RunObserver], settled: Int64 = 0) {
        runLater(0) {
            _ = observers.allSatisfy { $0.waitUntilStarted(within: 20) }
            let deadline = Date(timeIntervalSinceNow: 20)
            while progress.completedUnitCount < settled && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
            progress.cancel()
        }
    }

    private func sleepers(_ count: Int, seconds: Double) -> [ThrowableTask<Int>] {
        (0..<count).map { i in
            ThrowableTask { () -> Int in
                sleep(seconds: seconds)
                return i
            }
        }
    }

    /// Reads `progress.completedUnitCount` every 2 ms on its own thread until stopped.
    private final class Sampler: Sendable {
        private let samples = LockedValue<[Int64]>([])
        private let stopped = LockedValue(false)

        init(_ progress: Progress) {
            Thread.detachNewThread { [self] in
                while !stopped.value {
                    samples.update { $0.append(progress.completedUnitCount) }
                    Thread.sleep(forTimeInterval: 0.002)
                }
            }
        }

        func stop() -> [Int64] {
            stopped.set(true)
            return samples.value
        }
    }

    @Test func theCountsReachTheTotalAndRiseWhileTheBatchRuns() async throws {
        let progress = Progress(totalUnitCount: 0)
        let sampler = Sampler(progress)
        // The last task runs once at least 18 have settled, and ends once the progress shows a
        // count (or after 10 s): what it saw is between 0 and 20 unless the count rose only
        // when the batch ended.
        let seenByTheLast = LockedValue<Int64>(0)
        let tasks =
            sleepers(19, seconds: 0.01) + [
                ThrowableTask { () -> Int in
                    let deadline = DispatchTime.now() + 10 * timingSlack
                    while progress.completedUnitCount == 0 && DispatchTime.now() < deadline { usleep(1_000) }
                    seenByTheLast.set(progress.completedUnitCount)
                    return 19
                }
            ]
        let values = try await withWatchdog { try tasks.awaitAll(concurrency: 2, progress: progress) }
        let samples = sampler.stop()
        #expect(values == Array(0..<20))
        #expect(progress.totalUnitCount == 20 && progress.completedUnitCount == 20)
        #expect((1..<20).contains(seenByTheLast.value), "the last task saw \(seenByTheLast.value) of 20 settled")
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0 <= $1 }, "the count went back: \(samples)")
    }

    @Test func everyWaitThatTakesAProgressCountsItsTasks() async throws {
        let progress = Progress(totalUnitCount: 0)
        let tasks = sleepers(5, seconds: 0)
        _ = try await withWatchdog { try tasks.awaitAll(progress: progress) }
        _ = try await withWatchdog { tasks.awaitAllResults(progress: progress) }
        let sum = try await withWatchdog {
            try [1, 2, 3].awaitReduce(0, progress: progress) { sum, n in ThrowableTask { sum + n } }
        }
        _ = try await withWatchdog { try ["a": tasks[0], "b": tasks[1]].awaitAll(progress: progress) }
        _ = try await withWatchdog { ["a": tasks[0]].awaitAllResults(progress: progress) }
        #expect(sum == 6)
        #expect(progress.totalUnitCount == 16 && progress.completedUnitCount == 16)
    }

    @Test func anIndeterminateProgressCountsFromZero() async throws {
        // A total of -1 with the tasks added to it ended at 5 of 4, 125%.
        let batch = Progress(totalUnitCount: -1)
        _ = try await withWatchdog { try sleepers(5, seconds: 0).awaitAll(progress: batch) }
        #expect(batch.totalUnitCount == 5 && batch.completedUnitCount == 5)
        #expect(batch.fractionCompleted == 1)
        let fold = Progress(totalUnitCount: -1)
        let sum = try await withWatchdog {
            try [1, 2, 3].awaitReduce(0, progress: fold) { sum, n in ThrowableTask { sum + n } }
        }
        #expect(sum == 6)
        #expect(fold.totalUnitCount == 3 && fold.completedUnitCount == 3)
    }

    @Test func manyQuickTasksAreCountedExactly() async throws {
        let progress = Progress(totalUnitCount: 0)
        let tasks = (0..<20_000).map { i in ThrowableTask { i } }
        let values = try await withWatchdog { try tasks.awaitAll(progress: progress) }
        #expect(values?.count == 20_000)
        #expect(progress.totalUnitCount == 20_000 && progress.completedUnitCount == 20_000)
    }

    @Test func aProgressWithAParentComposesAsFoundationIntends() async throws {
        let parent = Progress(totalUnitCount: 2)
        let child = Progress(totalUnitCount: 0, parent: parent, pendingUnitCount: 1)
        _ = try await withWatchdog { try sleepers(4, seconds: 0).awaitAll(progress: child) }
        #expect(child.fractionCompleted == 1)
        #expect(parent.fractionCompleted == 0.5)
    }

    @Test func cancellingAParentProgressEndsTheWaitOfItsChild() async throws {
        let parent = Progress(totalUnitCount: 1)
        let child = Progress(totalUnitCount: 0, parent: parent, pendingUnitCount: 1)
        let observer = RunObserver()
        cancel(parent, onceRunning: [observer])
        let (error, seconds) = try #require(
            try await withWatchdog {
                timed {
                    thrownError { try [ThrowableTask { observer.sleep(30 * timingSlack) }].awaitAll(progress: child) }
                }
            })
        #expect((error as? CancellableTaskError) == .taskWasCancelled)
        #expect(seconds < progressCancelBound)
        #expect(observer.waitUntilCancellationSeen())
    }

    @Test func cancellingTheProgressEndsAwaitAllPromptlyAndCancelsTheRunsStillGoing() async throws {
        let progress = Progress(totalUnitCount: 0)
        let observers = (0..<4).map { _ in RunObserver() }
        let tasks = observers.map { observer in ThrowableTask { observer.sleep(30 * timingSlack) } }
        cancel(progress, onceRunning: Array(observers.prefix(2)))
        let (error, seconds) = try #require(
            try await withWatchdog { timed { thrownError { try tasks.awaitAll(concurrency: 2, progress: progress) } } })
        #expect((error as? CancellableTaskError) == .taskWasCancelled)
        #expect(seconds < progressCancelBound)
        #expect(observers.prefix(2).allSatisfy { $0.waitUntilCancellationSeen() })
        #expect(observers.dropFirst(2).allSatisfy { $0.runs == 0 })
    }

    @Test func cancellingTheProgressEndsAwaitAllResultsWithTheRestCancelled() async throws {
        let progress = Progress(totalUnitCount: 0)
        let observer = RunObserver()
        let tasks = [
            ThrowableTask { 0 },
            ThrowableTask {
                observer.sleep(30 * timingSlack); return 1
            },
        ]
        cancel(progress, onceRunning: [observer], settled: 1)
        let (results, seconds) = try #require(
            try await withWatchdog { timed { tasks.awaitAllResults(progress: progress) } })
        #expect(seconds < progressCancelBound)
        #expect(try results[0].get() == 0)
        #expect((results[1].failure as? CancellableTaskError) == .taskWasCancelled)
        #expect(observer.waitUntilCancellationSeen())
    }

    @Test func cancellingTheProgressEndsAwaitReducePromptly() async throws {
        let progress = Progress(totalUnitCount: 0)
        let observer = RunObserver()
        cancel(progress, onceRunning: [observer])
        let (error, seconds) = try #require(
            try await withWatchdog {
                timed {
                    thrownError {
                        try [1, 2, 3].awaitReduce(0, progress: progress) { sum, n in
                            ThrowableTask {
                                observer.sleep(30 * timingSlack); return sum + n
                            }
                        }
                    }
                }
            })
        #expect((error as? CancellableTaskError) == .taskWasCancelled)
        #expect(seconds < progressCancelBound)
        #expect(observer.waitUntilCancellationSeen())
        #expect(observer.runs == 1, "no step after the cancelled one")
    }

    @Test func aProgressCancelledAlreadyFailsAtOnceAndStartsNothing() throws {
        let progress = Progress(totalUnitCount: 0)
        progress.cancel()
        let runs = LockedValue(0)
        let tasks = (0..<3).map { i in
            ThrowableTask { () -> Int in
                runs.update { $0 += 1 }
                return i
            }
        }
        let error = thrownError { try tasks.awaitAll(progress: progress) }
        #expect((error as? CancellableTaskError) == .taskWasCancelled)
        let results = tasks.awaitAllResults(progress: progress)
        #expect(results.count == 3 && results.allSatisfy { ($0.failure as? CancellableTaskError) == .taskWasCancelled })
        let reduceError = thrownError {
            try [1].awaitReduce(0, progress: progress) { _, _ in tasks[0] }
        }
        #expect((reduceError as? CancellableTaskError) == .taskWasCancelled)
        #expect(runs.value == 0)
        #expect(progress.totalUnitCount == 0 && progress.completedUnitCount == 0)
    }

    @Test func noTasksLeaveTheProgressAtZeroOfZero() throws {
        let progress = Progress(totalUnitCount: 0)
        #expect(try [ThrowableTask<Int>]().awaitAll(progress: progress).isEmpty)
        #expect([ThrowableTask<Int>]().awaitAllResults(progress: progress).isEmpty)
        #expect(try [Int]().awaitReduce(0, progress: progress) { s, _ in ThrowableTask { s } } == 0)
        #expect(progress.totalUnitCount == 0 && progress.completedUnitCount == 0)
    }

    @Test func theProgressKeepsItsOwnCancellationHandler() async throws {
        let progress = Progress(totalUnitCount: 0)
        let handlerRuns = LockedValue(0)
        progress.cancellationHandler = { handlerRuns.update { $0 += 1 } }
        _ = try await withWatchdog { try sleepers(3, seconds: 0).awaitAll(progress: progress) }
        let observer = RunObserver()
        // Cancelled once the wait's task runs, after the wait has put its handler on.
        cancel(progress, onceRunning: [observer])
        _ = try await withWatchdog {
            thrownError { try [ThrowableTask { observer.sleep(30 * timingSlack) }].awaitAll(progress: progress) }
        }
        // Foundation calls the handler from a global queue, which other tests can keep busy.
        let deadline = DispatchTime.now() + 10 * timingSlack
        while handlerRuns.value == 0 && DispatchTime.now() < deadline {
            try await _Concurrency.Task.sleep(nanoseconds: 5_000_000)
        }
        try await _Concurrency.Task.sleep(nanoseconds: 200_000_000)
        #expect(handlerRuns.value == 1, "the handler set before the waits ran once, on the cancel")
    }
}
