import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Taskig

/// Tangled waits that are not cycles never fail with `TaskigError.deadlock`: diamonds of
/// futures, fan-in, many threads waiting for one future, continuations, collection lanes, and
/// waits that race with completions. CI also runs this suite on one core, and under
/// ThreadSanitizer.
@Suite struct DeadlockStressTests {
    /// Whether any of `outcomes` is a deadlock.
    private func deadlocks<T>(in outcomes: [Result<T, Error>]) -> [String] {
        outcomes.compactMap { outcome in
            guard case .failure(let error) = outcome, case TaskigError.deadlock = error else { return nil }
            return "\(error)"
        }
    }

    /// Work that parks its waiters now and then: it ends within 0–1 ms, longer than their spin.
    private static func briefly<T>(_ value: T) -> T {
        usleep(UInt32.random(in: 0...1_000))
        return value
    }

    /// Layers of futures, each awaiting futures of the layers before it in every way Taskig
    /// waits: plain waits, collection lanes, races, continuations. Every future's work is
    /// started at once and parks on others as they are still running.
    @Test func diamondsAndFanInNeverDeadlock() async throws {
        let rounds = timingSlack > 1 ? 4 : 30
        let outcomes = try await withWatchdog(seconds: 60) { () -> [Result<Int, Error>] in
            var outcomes: [Result<Int, Error>] = []
            for _ in 0..<rounds {
                let source = ThrowableTask { Self.briefly(1) }.start()
                // A diamond: two futures on the source, one on both.
                let left = ThrowableTask { try source.await() + Self.briefly(1) }.start()
                let right = ThrowableTask { try source.await() + Self.briefly(2) }.start()
                let bottom = ThrowableTask { try left.await() + right.await() }.start()
                // Fan-in at width 24, through collection lanes, of futures on the diamond.
                let wide = (0..<24).map { index in
                    ThrowableTask { try (index.isMultiple(of: 2) ? left : right).await() + Self.briefly(index) }.start()
                }
                let fanIn = ThrowableTask { try wide.awaitAll().reduce(0, +) }.start()
                let settled = ThrowableTask { () -> Int in
                    let results = (wide + [bottom]).map { future in ThrowableTask { try future.await() } }
                        .awaitAllResults(concurrency: 8)
                    return try results.map { try $0.get() }.reduce(0, +)
                }.start()
                // A race, a continuation listening to a future, and a composed wait on both.
                let race = ThrowableTask { try [fanIn, settled, bottom].awaitFirst() }.start()
                let continuation = bottom.map { $0 * 10 }.flatMap { value in
                    ThrowableTask { try fanIn.await() + value }
                }.start()
                let top = ThrowableTask { try continuation.await() + race.await() + settled.await() }.start()
                // Many threads wait for the same futures at once, some as they complete.
                let waiters = (0..<8).map { index in
                    ThrowableTask { try (index.isMultiple(of: 2) ? top : bottom).await() }
                }
                outcomes += waiters.awaitAllResults(concurrency: 8)
                outcomes += [top, fanIn, settled, continuation].map { $0.awaitResult() }
            }
            return outcomes
        }
        let all = try #require(outcomes)
        #expect(deadlocks(in: all).isEmpty, "\(deadlocks(in: all).first ?? "")")
        #expect(
            all.allSatisfy { (try? $0.get()) != nil }, "\(all.first { (try? $0.get()) == nil }.map { "\($0)" } ?? "")")
    }

    /// Futures awaited from many threads while they complete: a wait that parks just as its
    /// future's work ends, and a cycle check that reads that work's thread as it wakes.
    @Test func waitsThatRaceWithCompletionsNeverDeadlock() async throws {
        let rounds = timingSlack > 1 ? 50 : 400
        let outcomes = try await withWatchdog(seconds: 60) { () -> [Result<Int, Error>] in
            (0..<rounds).flatMap { round -> [Result<Int, Error>] in
                let first = ThrowableTask { Self.briefly(round) }.start()
                let second = ThrowableTask { try first.await() + Self.briefly(1) }.start()
                let third = ThrowableTask { try second.await() + first.await() }.start()
                return (0..<4).map { index in
                    ThrowableTask { try (index.isMultiple(of: 2) ? third : second).await() }
                }.awaitAllResults(concurrency: 4)
            }
        }
        let all = try #require(outcomes)
        #expect(deadlocks(in: all).isEmpty, "\(deadlocks(in: all).first ?? "")")
        #expect(all.allSatisfy { (try? $0.get()) != nil })
    }
}
