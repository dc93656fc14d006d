import Dispatch
import Foundation
import Testing

@testable import Taskig

/// A promise released unresolved fails its future with `promiseDropped`, naming where it was
/// made, and releases every waiter and continuation of that future, early or late.
@Suite struct PromiseDroppedTests {
    /// The place this file's promises are made at `line`, as the error names it.
    static func madeHere(_ line: UInt) -> CallSite {
        CallSite(fileID: "TaskigTests/PromiseDroppedTests.swift", line: line)
    }

    /// Checks that `error` is `promiseDropped` for a promise made at `line` of this file, and
    /// that its description says so.
    static func expectDropped(_ error: Error?, madeAt line: UInt, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case TaskigError.promiseDropped(let madeAt)? = error else {
            Issue.record("expected promiseDropped, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(madeAt == madeHere(line), sourceLocation: sourceLocation)
        let description = String(describing: error!)
        #expect(
            description.hasPrefix(
                "TaskigError.promiseDropped: the promise made at TaskigTests/PromiseDroppedTests.swift:\(line) "
                    + "was released without being resolved"),
            sourceLocation: sourceLocation)
        #expect(error!.localizedDescription == description, sourceLocation: sourceLocation)
    }

    @Test func aThreadWaitingOnTheFutureIsReleasedAndSoIsOneArrivingAfter() async throws {
        let line: UInt = #line + 1
        let holder = LockedValue<Promise<Int>?>(Promise())
        let future = try #require(holder.value).future
        runLater(0.05) { holder.set(nil) }
        let early = try await withWatchdog { future.awaitResult() }
        Self.expectDropped(early?.failure, madeAt: line)
        let late = try await withWatchdog { future.awaitResult() }
        Self.expectDropped(late?.failure, madeAt: line)
        let lateWithTimeout = try await withWatchdog { Result { try future.await(timeout: 5) } }
        Self.expectDropped(lateWithTimeout?.failure, madeAt: line)
        #expect(!future.isCancelled)
    }

    @Test func aWaitWithATimeoutIsReleasedBeforeItsTimeout() async throws {
        let line: UInt = #line + 1
        let holder = LockedValue<Promise<Int>?>(Promise())
        let future = try #require(holder.value).future
        runLater(0.05) { holder.set(nil) }
        let outcome = try await withWatchdog { Result { try future.await(timeout: 60) } }
        Self.expectDropped(outcome?.failure, madeAt: line)
    }

    @Test func continuationsGetTheFailureEarlyOrLate() async throws {
        let line: UInt = #line + 1
        let holder = LockedValue<Promise<Int>?>(Promise())
        let future = try #require(holder.value).future
        let mapped = future.map { $0 + 1 }.start()
        let delivered = LockedValue<Result<Int, Error>?>(nil)
        let callbackRan = DispatchSemaphore(value: 0)
        future.async { outcome in
            delivered.set(outcome)
            callbackRan.signal()
        }
        holder.set(nil)
        let outcome = try await withWatchdog { mapped.awaitResult() }
        Self.expectDropped(outcome?.failure, madeAt: line)
        #expect(callbackRan.wait(timeout: .now() + 10 * timingSlack) == .success)
        Self.expectDropped(delivered.value?.failure, madeAt: line)
        let lateMap = try await withWatchdog { future.map { $0 * 2 }.awaitResult() }
        Self.expectDropped(lateMap?.failure, madeAt: line)
        let recovered = try await withWatchdog { try future.recover { _ in -1 }.await() }
        #expect(recovered == -1)
    }

    @Test func valueFromAsyncCodeThrowsIt() async throws {
        let line: UInt = #line + 1
        let holder = LockedValue<Promise<String>?>(Promise())
        let future = try #require(holder.value).future
        runLater(0.05) { holder.set(nil) }
        do {
            let value = try await future.value
            Issue.record("got \(value)")
        } catch {
            Self.expectDropped(error, madeAt: line)
        }
    }

    @Test func collectionWaitsOverTheFutureEnd() async throws {
        let line: UInt = #line + 1
        let holder = LockedValue<Promise<Int>?>(Promise())
        let future = try #require(holder.value).future
        let kept = Promise<Int>()
        runLater(0.05) {
            kept.resolve(7)
            holder.set(nil)
        }
        let results = try await withWatchdog { [kept.future, future].awaitAllResults() }
        #expect(try results?[0].get() == 7)
        Self.expectDropped(results?[1].failure, madeAt: line)
        let all = try await withWatchdog { Result { try [kept.future, future].awaitAll() } }
        Self.expectDropped(all?.failure, madeAt: line)
    }

    @Test func aPromiseHeldByAPendingCallbackResolvesAsBefore() async throws {
        let future: Future<Int> = {
            let promise = Promise<Int>()
            runLater(0.05) { promise.resolve(5) }
            return promise.future
        }()
        #expect(try await withWatchdog { try future.await() } == 5)
    }

    @Test func aFunctionThatMakesPromisesCanNameItsCaller() async throws {
        func pending(file: StaticString = #fileID, line: UInt = #line) -> Future<Int> {
            Promise<Int>(file: file, line: line).future
        }
        let line: UInt = #line + 1
        let future = pending()
        let outcome = try await withWatchdog { future.awaitResult() }
        Self.expectDropped(outcome?.failure, madeAt: line)
    }

    /// The promise's last reference goes while the user holds a lock that the future's
    /// continuation takes: a continuation run inside the release would wait for that lock on
    /// the thread that holds it, for good.
    @Test func droppedUnderTheUsersLockItsContinuationRunsElsewhere() async throws {
        let lock = LockedValue(0)
        let line: UInt = #line + 1
        let holder = LockedValue<Promise<Int>?>(Promise())
        let future = try #require(holder.value).future
        let continued = future.continueWith { outcome in
            lock.update { count in
                count += 1
                return outcome
            }
        }.start()
        let outcome = try await withWatchdog {
            lock.update { _ in holder.set(nil) }
            return try continued.await()
        }
        // After a hang the lock stays held: reading it would hang the test too.
        guard let outcome else { return }
        Self.expectDropped(outcome.failure, madeAt: line)
        #expect(lock.value == 1)
    }

    @Test func casesMatchWithoutBindingTheirPayload() {
        let error: Error = TaskigError.promiseDropped(madeAt: Self.madeHere(1))
        var matched = false
        if case TaskigError.promiseDropped = error { matched = true }
        #expect(matched)
        #expect(String(describing: Self.madeHere(12)) == "TaskigTests/PromiseDroppedTests.swift:12")
    }
}
