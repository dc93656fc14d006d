import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Taskig

/// Lanes claim quick tasks several at a time and take over the ones other lanes have not
/// started (see `Batch`). Under races between lanes claiming, taking over and ending, every
/// task still runs exactly once and its outcome lands in its own place.
@Suite(.serialized) struct LaneClaimStressTests {
    /// `count` tasks, mostly trivial; every `blockEvery`-th one (from `seed`) sleeps a little,
    /// which makes its lane claim one task at a time again and leaves its claimed tasks to the
    /// others. Each counts its run in `runs`.
    private static func tasks(count: Int, seed: Int, blockEvery: Int, runs: Counter) -> [ThrowableTask<Int>] {
        (0..<count).map { index in
            ThrowableTask { () -> Int in
                runs.increment()
                if (index + seed) % blockEvery == 0 { usleep(UInt32(20 + (index * 7 + seed) % 200)) }
                return index
            }
        }
    }

    final class Counter: Sendable {
        private let value = Atomic(0)
        func increment() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    /// Runs `rounds` rounds under a watchdog; each returns what it found wrong, if anything.
    private func expectEveryRoundRight(
        _ rounds: Int, sourceLocation: SourceLocation = #_sourceLocation, _ round: @escaping @Sendable (Int) -> String?
    ) async throws {
        let wrongRounds = try await withWatchdog(seconds: 60, sourceLocation: sourceLocation) {
            (0..<rounds).compactMap { index in round(index).map { "round \(index): \($0)" } }
        }
        #expect(wrongRounds == [], sourceLocation: sourceLocation)
    }

    @Test func everyTaskOfAnAwaitAllRunsExactlyOnce() async throws {
        try await expectEveryRoundRight(300) { round in
            let count = [1, 2, 17, 40, 333, 2_000][round % 6]
            let concurrency = [1, 2, 3, 8, 50][round % 5]
            let runs = Counter()
            let tasks = Self.tasks(count: count, seed: round, blockEvery: [7, 97, 500][round % 3], runs: runs)
            let values = tasks.awaitAllResults(concurrency: concurrency).map { try? $0.get() }
            guard values == Array(0..<count), runs.count == count else {
                return "\(runs.count) runs of \(count) tasks at concurrency \(concurrency)"
            }
            return nil
        }
    }

    /// The second-to-last task waits for the last, which its lane has most likely claimed
    /// with it: another lane must take that one over, and must not end before it can.
    @Test func aTaskThatWaitsForALaterOneOfTheSameWaitFindsItRun() async throws {
        try await expectEveryRoundRight(300) { round in
            let count = [20, 200, 2_000][round % 3]
            let concurrency = [2, 3, 8][round % 3 == 0 ? 1 : round % 2 == 0 ? 0 : 2]
            let lastRan = DispatchSemaphore(value: 0)
            let tasks = (0..<count).map { index in
                ThrowableTask { () -> Int in
                    if index == count - 2 {
                        guard lastRan.wait(timeout: .now() + 2 * timingSlack) == .success else { return -1 }
                    }
                    if index == count - 1 { lastRan.signal() }
                    return index
                }
            }
            guard (try? tasks.awaitAll(concurrency: concurrency)) == Array(0..<count) else {
                return "\(count) tasks at concurrency \(concurrency)"
            }
            return nil
        }
    }

    @Test func everyTaskOfACompletionsLoopRunsExactlyOnceAndIsHandedOutOnce() async throws {
        try await expectEveryRoundRight(200) { round in
            let count = [3, 40, 333, 1_500][round % 4]
            let concurrency = [1, 2, 4, 50][round % 4 == 0 ? 3 : round % 3]
            let runs = Counter()
            let tasks = Self.tasks(count: count, seed: round, blockEvery: [11, 150][round % 2], runs: runs)
            var handedOut = [Int](repeating: 0, count: count)
            for (offset, result) in tasks.completions(concurrency: concurrency) {
                handedOut[offset] += 1
                if (try? result.get()) != offset { handedOut[offset] += 100 }
            }
            guard handedOut == [Int](repeating: 1, count: count), runs.count == count else {
                return "\(runs.count) runs of \(count) tasks at concurrency \(concurrency)"
            }
            return nil
        }
    }
}
