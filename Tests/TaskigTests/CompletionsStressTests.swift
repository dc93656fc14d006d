import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Taskig

/// `completions` used the way a hostile caller would: many loops at once, each leaving at a
/// random point, loops nested in the tasks of other loops, a progress cancelled at random.
/// Every outcome is handed out at most once, a loop that ran to the end saw every task, and
/// every outcome, handed out or not, is freed exactly once.
@Suite(.serialized) struct CompletionsStressTests {
    /// An outcome that counts the instances alive.
    final class Tracked: Sendable {
        static let alive = Atomic(0)
        let offset: Int

        init(_ offset: Int) {
            self.offset = offset
            Self.alive.add(1, ordering: .relaxed)
        }

        deinit { Self.alive.subtract(1, ordering: .relaxed) }
    }

    /// 50 tasks, some of which sleep a little and some of which fail.
    private static func tasks(seed: Int) -> [ThrowableTask<Tracked>] {
        (0..<50).map { offset in
            ThrowableTask { () -> Tracked in
                if (offset + seed) % 7 == 0 { usleep(200) }
                if (offset + seed) % 11 == 0 { throw TestError(offset) }
                return Tracked(offset)
            }
        }
    }

    /// Iterates `tasks` and leaves after `leaveAfter` outcomes (never, when it is above 50);
    /// returns whether what it saw was consistent.
    private static func iterate(_ tasks: [ThrowableTask<Tracked>], concurrency: Int, leaveAfter: Int) -> Bool {
        var seen = Set<Int>()
        for (offset, result) in tasks.completions(concurrency: concurrency) {
            guard seen.insert(offset).inserted else { return false }
            switch result {
            case .success(let tracked): guard tracked.offset == offset else { return false }
            case .failure(let error): guard (error as? TestError) == TestError(offset) else { return false }
            }
            if seen.count == leaveAfter { return true }
        }
        return seen.count == tasks.count
    }

    @Test func manyLoopsAtOnceEachLeavingAtARandomPoint() async throws {
        let inconsistent = try await withWatchdog(seconds: 60) { () -> Int in
            let failures = Atomic(0)
            // Callers on threads of their own: on Dispatch's global queue they would hold its
            // threads, which other tests (and Foundation) need, for the whole test.
            let callers = DispatchGroup()
            for caller in 0..<8 {
                callers.enter()
                Thread.detachNewThread {
                    var generator = SystemRandomNumberGenerator()
                    for round in 0..<150 {
                        let tasks = Self.tasks(seed: caller &* 31 &+ round)
                        let concurrency = Int.random(in: 1...8, using: &generator)
                        let leaveAfter = Int.random(in: 0...60, using: &generator)
                        if !Self.iterate(tasks, concurrency: concurrency, leaveAfter: leaveAfter) {
                            failures.add(1, ordering: .relaxed)
                        }
                    }
                    callers.leave()
                }
            }
            callers.wait()
            return failures.load(ordering: .relaxed)
        }
        #expect(inconsistent == 0)
        #expect(await everyOutcomeIsFreed())
    }

    @Test func loopsNestedInTheTasksOfOtherLoops() async throws {
        let consistent = try await withWatchdog(seconds: 60) { () -> Bool in
            let outer = (0..<20).map { round in
                ThrowableTask { () -> Bool in
                    Self.iterate(Self.tasks(seed: round), concurrency: 4, leaveAfter: round % 2 == 0 ? 99 : round)
                }
            }
            return outer.completions(concurrency: 8).allSatisfy { (try? $0.result.get()) == true }
        }
        #expect(consistent == true)
        #expect(await everyOutcomeIsFreed())
    }

    @Test func progressesCancelledAtRandomPoints() async throws {
        let wrong = try await withWatchdog(seconds: 60) { () -> Int in
            var wrong = 0
            for round in 0..<200 {
                let progress = Progress(totalUnitCount: 0)
                let tasks = Self.tasks(seed: round)
                runLater(Double(round % 5) / 2_000) { progress.cancel() }
                let results = tasks.awaitAllResults(concurrency: 4, progress: progress)
                let settled = results.filter { ($0.failure as? CancellableTaskError) != .taskWasCancelled }.count
                let counted = Int(progress.completedUnitCount)
                // Cancelled before the wait began, it starts nothing and counts nothing.
                let startedNothing = progress.totalUnitCount == 0 && counted == 0 && settled == 0
                let counts = progress.totalUnitCount == 50 && counted >= settled && counted <= 50
                if results.count != 50 || !(startedNothing || counts) { wrong += 1 }
            }
            return wrong
        }
        #expect(wrong == 0)
        #expect(await everyOutcomeIsFreed())
    }

    /// Whether every `Tracked` is freed within a few seconds: lanes still finishing tasks of a
    /// loop that was left free their late outcomes once they let go of the batch.
    private func everyOutcomeIsFreed() async -> Bool {
        for _ in 0..<300 {
            if Tracked.alive.load(ordering: .relaxed) == 0 { return true }
            try? await _Concurrency.Task.sleep(nanoseconds: 10_000_000)
        }
        return false
    }
}
