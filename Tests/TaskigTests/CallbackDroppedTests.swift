import Dispatch
import Foundation
import Testing

@testable import Taskig

/// A completion handler that Taskig gave a callback task, released without having been
/// called, fails the run with `callbackDropped`, naming the task; a `Task`, which cannot fail,
/// stops a debug build with that message instead.
@Suite struct CallbackDroppedTests {
    /// A lookup whose `action(completion:)` forgets to call `completion` when the key is not a
    /// number: the forgotten branch of a user's own task type.
    struct ForgetfulLookup: ThrowableTaskType {
        static let queue = DispatchQueue(label: "test.lookups")
        let key: String

        var executionQueue: DispatchQueue { Self.queue }

        func action(completion: @escaping @Sendable (Result<Int, Error>) -> Void) {
            guard let value = Int(key) else { return }
            completion(.success(value))
        }
    }

    /// How the error names a `ForgetfulLookup`.
    static let forgetfulLookup = "ForgetfulLookup on queue test.lookups"
    /// How the error names a `ThrowableTask<Int>` on the default global queue.
    static let throwableTaskOfInt = "ThrowableTask<Int> on queue \(QueueAffinity.defaultGlobalQueue.label)"

    /// A task on the global queue that calls `done` only for a key that is a number.
    static func forgetfulTask(_ key: String) -> ThrowableTask<Int> {
        ThrowableTask<Int> { done in
            if let value = Int(key) { done(.success(value)) }
        }
    }

    /// Checks that `error` is `callbackDropped` naming `task`, and that its description says so.
    static func expectDropped(_ error: Error?, task: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case TaskigError.callbackDropped(let named)? = error else {
            Issue.record("expected callbackDropped, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(named == task, sourceLocation: sourceLocation)
        let description = String(describing: error!)
        #expect(
            description.hasPrefix(
                "TaskigError.callbackDropped: the completion handler of \(task) was released without being called"),
            sourceLocation: sourceLocation)
        #expect(description.contains("call the completion handler exactly once"), sourceLocation: sourceLocation)
        #expect(error!.localizedDescription == description, sourceLocation: sourceLocation)
    }

    @Test func aThrowableTaskWhoseBranchForgetsDoneFails() async throws {
        let outcome = try await withWatchdog { Self.forgetfulTask("x").awaitResult() }
        Self.expectDropped(outcome?.failure, task: Self.throwableTaskOfInt)
        #expect(try await withWatchdog { try Self.forgetfulTask("4").await() } == 4)
    }

    @Test func aHandlerThatACallbackAPIReleasesLaterFailsTheWaitingRun() async throws {
        let onSerialQueue = ThrowableTask<String>(executionQueue: DispatchQueue(label: "test.requests")) { done in
            // An API that keeps the handler until an error path releases it uncalled.
            runLater(0.05) { withExtendedLifetime(done) {} }
        }
        let outcome = try await withWatchdog { Result { try onSerialQueue.await(timeout: 60) } }
        Self.expectDropped(outcome?.failure, task: "ThrowableTask<String> on queue test.requests")
    }

    @Test func aTypeWhoseActionForgetsItsCompletionFailsEveryKindOfRun() async throws {
        let forgetful = ForgetfulLookup(key: "x")
        let awaited = try await withWatchdog { forgetful.awaitResult() }
        Self.expectDropped(awaited?.failure, task: Self.forgetfulLookup)
        let timed = try await withWatchdog { Result { try forgetful.await(timeout: 60) } }
        Self.expectDropped(timed?.failure, task: Self.forgetfulLookup)
        let started = try await withWatchdog { forgetful.start().awaitResult() }
        Self.expectDropped(started?.failure, task: Self.forgetfulLookup)
        let mapped = try await withWatchdog { forgetful.map { $0 + 1 }.awaitResult() }
        Self.expectDropped(mapped?.failure, task: Self.forgetfulLookup)
        let delivered = LockedValue<Result<Int, Error>?>(nil)
        let callbackRan = DispatchSemaphore(value: 0)
        forgetful.async { outcome in
            delivered.set(outcome)
            callbackRan.signal()
        }
        #expect(callbackRan.wait(timeout: .now() + 10 * timingSlack) == .success)
        Self.expectDropped(delivered.value?.failure, task: Self.forgetfulLookup)
        do {
            let value = try await forgetful.value
            Issue.record("got \(value)")
        } catch {
            Self.expectDropped(error, task: Self.forgetfulLookup)
        }
        #expect(try await withWatchdog { try ForgetfulLookup(key: "8").map { $0 + 1 }.await() } == 9)
    }

    @Test func collectionWaitsCountTheRunAsFailedAndEnd() async throws {
        let lookups = ["1", "x", "3"].map { ForgetfulLookup(key: $0) }
        let results = try await withWatchdog { lookups.awaitAllResults() }
        #expect(results?.count == 3)
        #expect(try results?[0].get() == 1)
        Self.expectDropped(results?[1].failure, task: Self.forgetfulLookup)
        #expect(try results?[2].get() == 3)
        let all = try await withWatchdog { Result { try lookups.awaitAll(concurrency: 2) } }
        Self.expectDropped(all?.failure, task: Self.forgetfulLookup)
        let tasks = (0..<100).map { Self.forgetfulTask($0 == 57 ? "x" : "\($0)") }
        let taskResults = try await withWatchdog { tasks.awaitAllResults(concurrency: 8) }
        for (index, result) in (taskResults ?? []).enumerated() where index != 57 {
            #expect(try result.get() == index)
        }
        Self.expectDropped(taskResults?[57].failure, task: Self.throwableTaskOfInt)
        let allTasks = try await withWatchdog { Result { try tasks.awaitAll(concurrency: 8) } }
        Self.expectDropped(allTasks?.failure, task: Self.throwableTaskOfInt)
    }

    /// The handler's last reference goes while the user holds a lock that the run's
    /// continuation takes: a failure delivered inside the release would wait for that lock on
    /// the thread that holds it, for good.
    @Test func aHandlerDroppedUnderTheUsersLockFailsTheRunElsewhere() async throws {
        let lock = LockedValue(0)
        let held = LockedValue<(@Sendable (Result<Int, Error>) -> Void)?>(nil)
        let stored = DispatchSemaphore(value: 0)
        let future = ThrowableTask<Int> { done in
            held.set(done)
            stored.signal()
        }.start()
        let continued = future.continueWith { outcome in
            lock.update { count in
                count += 1
                return outcome
            }
        }.start()
        let outcome = try await withWatchdog {
            stored.wait()
            lock.update { _ in held.set(nil) }
            return try continued.await()
        }
        // After a hang the lock stays held: reading it would hang the test too.
        guard let outcome else { return }
        Self.expectDropped(outcome.failure, task: Self.throwableTaskOfInt)
        #expect(lock.value == 1)
    }

    @Test func handlersCalledLaterOrElsewhereAreNotReported() async throws {
        let later = (0..<200).map { i in
            ThrowableTask<Int> { done in DispatchQueue.global().async { done(.success(i)) } }
        }
        #expect(try await withWatchdog { try later.awaitAll(concurrency: 50) } == Array(0..<200))
        let plain = (0..<200).map { i in Task<Int> { done in DispatchQueue.global().async { done(i) } } }
        #expect(try await withWatchdog { plain.awaitAll(concurrency: 50) } == Array(0..<200))
    }

    @Test func casesMatchWithoutBindingTheirPayload() {
        let error: Error = TaskigError.callbackDropped(task: Self.forgetfulLookup)
        var matched = false
        if case TaskigError.callbackDropped = error { matched = true }
        #expect(matched)
    }

    #if DEBUG
        /// A `Task` cannot fail, so a dropped handler stops a debug build, with a message on
        /// standard error that names the task. (An optimized build writes the message and
        /// leaves the run pending, which a test cannot wait for.)
        @Test func aTaskWhoseHandlerIsDroppedStopsADebugBuildWithItsName() async throws {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                synchronously {
                    _ = Task<Int>(executionQueue: DispatchQueue(label: "test.forgetful")) { _ in }.await()
                }
            }
            let standardError = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
            #expect(
                standardError.contains(
                    "Fatal error: the completion handler of Task<Int> on queue test.forgetful was released without "
                        + "being called, so its run can never end"))
        }
    #endif
}
