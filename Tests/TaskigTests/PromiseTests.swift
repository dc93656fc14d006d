import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct PromiseTests {
    @Test func theFirstOutcomeWinsAndLaterCallsReturnFalse() throws {
        let promise = Promise<Int>()
        #expect(promise.resolve(1))
        #expect(!promise.resolve(2))
        #expect(!promise.reject(TestError(1)))
        #expect(!promise.cancel())
        #expect(try promise.future.await() == 1)
        #expect(!promise.future.isCancelled)
    }

    @Test func rejectAndCancelAreOutcomesToo() throws {
        let rejected = Promise<Int>()
        #expect(rejected.reject(TestError(2)))
        #expect(throws: TestError(2)) { try rejected.future.await() }
        let cancelled = Promise<Int>()
        #expect(cancelled.cancel())
        #expect(!cancelled.resolve(1))
        #expect(throws: CancellableTaskError.taskWasCancelled) { try cancelled.future.await() }
        #expect(cancelled.future.isCancelled)
    }

    @Test func manyThreadsRacingLeaveExactlyOneOutcome() throws {
        for _ in 0..<100 {
            let promise = Promise<Int>()
            let winners = LockedValue<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 12) { i in
                let won: Bool
                switch i % 3 {
                case 0: won = promise.resolve(i)
                case 1: won = promise.reject(TestError(i))
                default: won = promise.cancel()
                }
                if won { winners.update { $0.append(i) } }
            }
            #expect(winners.value.count == 1)
            let winner = try #require(winners.value.first)
            let outcome = promise.future.awaitResult()
            switch winner % 3 {
            case 0: #expect(try outcome.get() == winner)
            case 1: #expect(throws: TestError(winner)) { try outcome.get() }
            default: #expect(throws: CancellableTaskError.taskWasCancelled) { try outcome.get() }
            }
        }
    }

    @Test func waitersAndContinuationsAreReleasedWhenItIsCancelled() async throws {
        let promise = Promise<Int>()
        let continuationRan = LockedValue(false)
        let continued = promise.future.continueWith { result -> Bool in
            continuationRan.set(true)
            if case .failure(CancellableTaskError.taskWasCancelled) = result { return true }
            return false
        }.start()
        runLater(0.05) { promise.cancel() }
        let outcomes = try await withWatchdog {
            (0..<10).map { _ in Task { promise.future.awaitResult() } }.awaitAll()
        }
        #expect(outcomes?.count == 10)
        for outcome in outcomes ?? [] {
            #expect(throws: CancellableTaskError.taskWasCancelled) { try outcome.get() }
        }
        #expect(try await withWatchdog { try continued.await() } == true)
        #expect(continuationRan.value)
    }

    @Test func lateWaitersSeeTheOutcome() throws {
        let promise = Promise<String>()
        promise.resolve("done")
        #expect(try promise.future.await() == "done")
        #expect(try promise.future.map { $0.count }.await() == 4)
    }
}
