import Dispatch
import Foundation
import Testing

@testable import Taskig

/// Waits that wait for each other fail with `TaskigError.deadlock` as the cycle closes, naming
/// each wait; waits that only look tangled never do.
@Suite struct DeadlockTests {
    /// Whether `outcome` failed with a deadlock; its description, for the checks.
    private func deadlockDescription<T>(_ outcome: Result<T, Error>?) -> String? {
        guard case .failure(let error)? = outcome, case TaskigError.deadlock = error else { return nil }
        return "\(error)"
    }

    /// Starts futures whose works each wait, once every future exists, for the next one in the
    /// ring: `ring[i]`'s work awaits `ring[(i + 1) % count]`. The line each work awaits on is
    /// `awaitLine`.
    private func ring(of count: Int) -> (futures: [Future<Int>], awaitLine: UInt) {
        let futures = LockedValue<[Future<Int>]>([])
        let everyFutureExists = DispatchSemaphore(value: 0)
        let awaitLine: UInt = #line + 4
        let started = (0..<count).map { index in
            ThrowableTask { () -> Int in
                _ = everyFutureExists.wait(timeout: .now() + 10 * timingSlack)
                return try futures.value[(index + 1) % count].await() + 1
            }.start()
        }
        futures.set(started)
        for _ in 0..<count { everyFutureExists.signal() }
        return (started, awaitLine)
    }

    @Test(arguments: [2, 3, 5])
    func futuresThatAwaitEachOtherFailWithADeadlockNamingEveryWait(count: Int) async throws {
        let (futures, awaitLine) = ring(of: count)
        let outcomes = try await withWatchdog { futures.map { $0.awaitResult() } }
        let descriptions = try #require(outcomes).map { deadlockDescription($0) }
        #expect(descriptions.allSatisfy { $0 != nil }, "\(String(describing: outcomes))")
        // The wait that closed the cycle names every wait in it: the await line of each future's
        // work, on as many threads.
        let closing = try #require(descriptions.compactMap { $0 }.first)
        #expect(closing.contains("\(count) waits wait for work that waits for each other"), "\(closing)")
        #expect(closing.contains("DeadlockTests.swift:\(awaitLine)"), "\(closing)")
        #expect(closing.contains("a Future<Int> started at TaskigTests/DeadlockTests.swift"), "\(closing)")
        for step in 1...count { #expect(closing.contains("\n  \(step). thread "), "\(closing)") }
    }

    @Test func theDeadlockCarriesTheWaitsOfTheCycle() async throws {
        let (futures, awaitLine) = ring(of: 2)
        let outcome = try await withWatchdog { futures[0].awaitResult() }
        guard case .failure(TaskigError.deadlock(let cycle))? = outcome else {
            Issue.record("expected a deadlock, got \(String(describing: outcome))")
            return
        }
        #expect(cycle.count == 2)
        #expect(
            cycle.allSatisfy { $0.callSite == CallSite(fileID: "TaskigTests/DeadlockTests.swift", line: awaitLine) })
        // Each future's work on a worker of its own, or both on one, when one ran the other's
        // work in place because it had not started yet.
        #expect((1...2).contains(Set(cycle.map(\.thread)).count), "\(cycle)")
        #expect(cycle.allSatisfy { !$0.hasDeadline })
    }

    /// A future's work that finds its peer's work not started runs it in place, on the same
    /// thread: the cycle closes there, and it is a deadlock of two runs, not a future awaited
    /// from its own work.
    @Test func aCycleClosedOnOneThreadIsADeadlockOfTwoRuns() async throws {
        let peer = LockedValue<Future<Int>?>(nil)
        let first = LockedValue<Future<Int>?>(nil)
        // The peer's work is kept from starting anywhere but in place: its future is made by
        // hand, with its work in the cell, as `start()` makes it, but never sent to a worker.
        let peerCell = CompletionCell<Result<Int, Error>>(work: { complete in
            let run = peer.value!.state.run!
            CurrentRun.whileRunning(run) {
                complete(Result { try first.value!.await() + 1 })
            }
        })
        peer.set(
            Future(
                state: FutureState(
                    cell: peerCell, run: Run(parent: nil, cancellable: true),
                    workQueue: WorkQueue(nil, kind: .defaultGlobal),
                    startedAt: StaticCallSite(#fileID, #line))))
        let gate = DispatchSemaphore(value: 0)
        first.set(
            ThrowableTask { () -> Int in
                gate.wait()
                return try peer.value!.await() + 1
            }.start())
        gate.signal()
        let outcome = try await withWatchdog { first.value!.awaitResult() }
        let description = try #require(deadlockDescription(outcome), "\(String(describing: outcome))")
        #expect(description.contains("2 waits wait"), "\(description)")
    }

    /// A continuation that listens to a future holds no thread; the future's work waiting for
    /// the continuation's future closes a cycle through it.
    @Test func aCycleThroughAChainStepFailsWithADeadlock() async throws {
        let continuation = LockedValue<Future<Int>?>(nil)
        let gate = DispatchSemaphore(value: 0)
        let source = ThrowableTask { () -> Int in
            gate.wait()
            return try continuation.value!.await()
        }.start()
        continuation.set(source.map { $0 + 1 }.start())
        gate.signal()
        let outcomes = try await withWatchdog { [source.awaitResult(), continuation.value!.awaitResult()] }
        for outcome in try #require(outcomes) {
            #expect(deadlockDescription(outcome) != nil, "\(outcome)")
        }
    }

    /// A future's work waits for every task of a collection, one of which waits for a second
    /// future, whose work waits for the first.
    @Test func aCycleThroughACollectionLaneFailsWithADeadlock() async throws {
        let other = LockedValue<Future<Int>?>(nil)
        let gate = DispatchSemaphore(value: 0)
        let first = ThrowableTask { () -> [Result<Int, Error>] in
            gate.wait()
            return [ThrowableTask { 1 }, ThrowableTask { try other.value!.await() }].awaitAllResults()
        }.start()
        other.set(ThrowableTask { try first.await().count }.start())
        gate.signal()
        let outcome = try #require(await withWatchdog { (first.awaitResult(), other.value!.awaitResult()) })
        // The lane's wait fails, closing the cycle or seeing the other future fail as it did.
        let results = try outcome.0.get()
        #expect(try results[0].get() == 1)
        #expect(deadlockDescription(results[1]) != nil, "\(results)")
        // The collection returns every outcome, so the other future gets it, unless its own wait
        // was the one that closed the cycle.
        if case .success(let count) = outcome.1 {
            #expect(count == 2)
        } else {
            #expect(deadlockDescription(outcome.1) != nil, "\(outcome)")
        }
    }

    /// A timed wait ends by itself: futures that wait for each other with a timeout time out,
    /// and no deadlock is reported.
    @Test func aCycleWithATimedWaitIsNoDeadlock() async throws {
        let second = LockedValue<Future<Int>?>(nil)
        let gate = DispatchSemaphore(value: 0)
        let first = ThrowableTask { () -> Int in
            gate.wait()
            return try second.value!.await(timeout: 0.2)
        }.start()
        second.set(ThrowableTask { try first.await() }.start())
        gate.signal()
        let outcomes = try #require(await withWatchdog { [first.awaitResult(), second.value!.awaitResult()] })
        for outcome in outcomes {
            guard case .failure(TaskigError.timedOut) = outcome else {
                Issue.record("expected the timeout, got \(outcome)")
                continue
            }
        }
    }

    /// A race that another task can still win is no cycle: the race ends with that task. (The
    /// second future's work starts before the race waits for it: a race lane that found it not
    /// started would run it in place, where the race's end cannot release it, and that would be
    /// a deadlock.)
    @Test func aCycleThroughARaceThatAnotherTaskWinsIsNoDeadlock() async throws {
        let second = LockedValue<Future<Int>?>(nil)
        let gate = DispatchSemaphore(value: 0)
        let secondStarted = DispatchSemaphore(value: 0)
        let first = ThrowableTask { () -> Int in
            gate.wait()
            secondStarted.wait()
            let winner = ThrowableTask { () -> Int in
                Thread.sleep(forTimeInterval: 0.1)
                return 7
            }
            return try [ThrowableTask { try second.value!.await() }, winner].awaitFirst()
        }.start()
        second.set(
            ThrowableTask { () -> Int in
                secondStarted.signal()
                return try first.await() + 1
            }.start())
        gate.signal()
        let values = try await withWatchdog { [try first.await(), try second.value!.await()] }
        #expect(values == [7, 8])
    }
}
