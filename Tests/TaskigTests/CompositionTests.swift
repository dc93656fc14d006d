import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct CompositionTests {
    @Test func mapTransformsTheValue() throws {
        #expect(try ThrowableTask { 20 }.map { $0 + 1 }.map { "\($0 * 2)" }.await() == "42")
    }

    @Test func anErrorSkipsSuccessStepsDownToTheFirstHandlerUnchanged() throws {
        let ran = LockedValue<[String]>([])
        let task = ThrowableTask { 1 }
            .map { value -> Int in
                ran.update { $0.append("first map") }
                throw TestError(2)
            }
            .map { value -> Int in
                ran.update { $0.append("skipped map") }
                return value
            }
            .flatMap { value -> ThrowableTask<Int> in
                ran.update { $0.append("skipped flatMap") }
                return ThrowableTask { value }
            }
            .recover { error -> Int in
                ran.update { $0.append("recover") }
                return (error as? TestError)?.id ?? -1
            }
        #expect(try task.await() == 2)
        #expect(ran.value == ["first map", "recover"])
    }

    @Test func flatMapWaitsForTheReturnedTask() throws {
        let task = ThrowableTask { 3 }.flatMap { value in
            ThrowableTask<Int> { done in
                runLater(0.02) { done(.success(value * 10)) }
            }
        }
        #expect(try task.await() == 30)
        let failing = ThrowableTask { 3 }.flatMap { _ in ThrowableTask<Int> { throw TestError(4) } }
        #expect(throws: TestError(4)) { try failing.await() }
    }

    @Test func mapErrorReplacesOnlyErrors() throws {
        #expect(try ThrowableTask { 1 }.mapError { _ in TestError(9) }.await() == 1)
        let failing = ThrowableTask<Int> { throw TestError(1) }.mapError { TestError(($0 as! TestError).id + 10) }
        #expect(throws: TestError(11)) { try failing.await() }
    }

    @Test func recoverTurnsErrorsIntoValuesOrTasks() throws {
        let failing = ThrowableTask<Int> { throw TestError(1) }
        #expect(try failing.recover { _ in 7 }.await() == 7)
        #expect(try failing.recover { _ in ThrowableTask { 8 } }.await() == 8)
        #expect(throws: TestError(5)) { try failing.recover { _ -> Int in throw TestError(5) }.await() }
        #expect(try ThrowableTask { 1 }.recover { _ in 0 }.await() == 1)
    }

    @Test func continueWithAlwaysRunsAndSeesTheResult() throws {
        let describe: @Sendable (Result<Int, Error>) -> String = { result in
            switch result {
            case .success(let value): return "value \(value)"
            case .failure(let error): return "error \((error as? TestError)?.id ?? -1)"
            }
        }
        #expect(try ThrowableTask { 1 }.continueWith(describe).await() == "value 1")
        #expect(try ThrowableTask<Int> { throw TestError(3) }.continueWith(describe).await() == "error 3")
        let throwing = ThrowableTask { 1 }.continueWith { _ -> Int in throw TestError(6) }
        #expect(throws: TestError(6)) { try throwing.await() }
    }

    @Test func finallyRunsOnBothOutcomesAndFinishesBeforeTheResultPassesOn() throws {
        let cleanedUp = LockedValue(0)
        let cleanup: @Sendable () -> Void = {
            sleep(seconds: 0.05)
            cleanedUp.update { $0 += 1 }
        }
        #expect(try ThrowableTask { 1 }.finally(cleanup).await() == 1)
        #expect(cleanedUp.value == 1)
        #expect(throws: TestError(2)) { try ThrowableTask<Int> { throw TestError(2) }.finally(cleanup).await() }
        #expect(cleanedUp.value == 2)
    }

    @Test func continuationsRunOnTheQueueTheyNamed() async throws {
        let queue = DispatchQueue(label: "taskig.test.continuation")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "serial")
        DispatchQueue.main.setSpecific(key: key, value: "main")
        let task = ThrowableTask { [String]() }
            .map(on: queue) { $0 + [DispatchQueue.getSpecific(key: key) ?? "?"] }
            .map(on: .main) { $0 + [DispatchQueue.getSpecific(key: key) ?? "?"] }
        #expect(try await withWatchdog { try task.await() } == ["serial", "main"])
    }

    @Test func aSequenceOfOneHundredBuiltByReassignment() throws {
        let order = LockedValue<[Int]>([])
        var task = ThrowableTask { 0 }
        for i in 1...100 {
            task = task.flatMap { total in
                ThrowableTask {
                    order.update { $0.append(i) }
                    return total + i
                }
            }
        }
        #expect(try task.await() == 5050)
        #expect(order.value == Array(1...100))
    }

    @Test func oneHundredInParallelThenOneFinalStep() async throws {
        // The first eleven tasks wait for each other: they meet once eleven run at once, however
        // long a loaded pool takes to give the lanes threads. A wait that never grew past a lane
        // per core would leave them waiting out their 5 s, and the watchdog would see it hang.
        let probe = ConcurrencyProbe()
        let barrier = Barrier(count: 11)
        let parallel = (0..<100).map { i in
            ThrowableTask { () -> Int in
                probe.measure { barrier.arriveAndWait(upTo: 5 * timingSlack) }
                return i
            }
        }
        let total = ThrowableTask { try parallel.awaitAll(concurrency: 100) }.map { $0.reduce(0, +) }
        let value = try await withWatchdog { try total.await() }
        #expect(value == 4950)
        #expect(barrier.waitsThatTimedOut == 0 && probe.peak > 10, "\(probe.peak) ran at once")
    }

    @Test func cancellingAComposedTaskCancelsTheRunItWaitsFor() async throws {
        let observer = RunObserver()
        // Past the watchdog unless the cancellation reaches it.
        let inner = ThrowableTask { () -> Int in
            observer.sleep(30 * timingSlack) ? 1 : -1
        }
        let composed = ThrowableTask { 1 }.map { $0 + 1 }.flatMap { _ in inner }.map { $0 * 2 }
        runLater(0) {
            _ = observer.waitUntilStarted()
            composed.cancel()
        }
        let (result, seconds) = try #require(await withWatchdog { timed { composed.awaitResult() } })
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result.get() }
        // Beside two busy loops (load 13–25): 7–16 ms debug, 10–12 ms ThreadSanitizer; a waiter left to the
        // inner body would wait its 30 s (× slack).
        #expect(seconds < 1 * timingSlack)
        #expect(try await withWatchdog { observer.waitUntilCancellationSeen() } == true, "the inner run is cancelled")
        #expect(!inner.isCancelled, "the task it continues is not")
        #expect(
            try await withWatchdog { try inner.timeout(0.05).recover { _ in 5 }.await() } == 5,
            "and can be awaited again")
    }

    @Test func cancellingTheFirstTaskForGoodFailsEveryRunOfTheComposedTask() throws {
        let first = ThrowableTask { 1 }
        let composed = first.map { $0 + 1 }
        first.cancel()
        #expect(!composed.isCancelled, "the composed task has its own cancellation")
        #expect(throws: CancellableTaskError.taskWasCancelled) { try composed.await() }
        #expect(try composed.recover { _ in 9 }.await() == 9, "a failure like any other")
    }

    @Test func continuationsThatHandleFailuresSeeACancelledRun() throws {
        let first = ThrowableTask { 1 }
        first.cancel()
        let seen = try first.continueWith { result -> String in
            if case .failure(CancellableTaskError.taskWasCancelled) = result { return "cancelled" }
            return "other"
        }.await()
        #expect(seen == "cancelled")
        let cleanedUp = LockedValue(0)
        #expect(throws: CancellableTaskError.taskWasCancelled) {
            try first.finally { cleanedUp.update { $0 += 1 } }.await()
        }
        #expect(cleanedUp.value == 1)
        #expect(try first.mapError { _ in TestError(4) }.recover { ($0 as? TestError)?.id ?? 0 }.await() == 4)
    }

    @Test func whenAComposedRunIsCancelledItsWaiterGoesAtOnceAndFinallyRunsOnce() async throws {
        let body = RunObserver()
        let cleanups = LockedValue(0)
        // Past the watchdog unless the cancellation reaches it.
        let composed = ThrowableTask { body.sleep(30 * timingSlack) ? 1 : -1 }.finally { cleanups.update { $0 += 1 } }
        let future = composed.start()
        let (result, seconds) = try #require(
            await withWatchdog { () -> (Result<Int, Error>, Double) in
                _ = body.waitUntilStarted()
                future.cancel()
                return timed { future.awaitResult() }
            })
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result.get() }
        // From the cancel, beside two busy loops (load 13–25): 2–6 µs debug, 25–36 µs ThreadSanitizer; a waiter
        // left to the body would wait its 30 s (× slack).
        #expect(seconds < 0.5 * timingSlack)
        _ = try await withWatchdog { body.waitUntilCancellationSeen() }
        let deadline = DispatchTime.now() + 10 * timingSlack
        while cleanups.value == 0 && DispatchTime.now() < deadline { sleep(seconds: 0.005) }
        sleep(seconds: 0.05)
        #expect(cleanups.value == 1)
    }

    @Test func aMillionLinksAreBuiltRunAndFreedWithoutRecursion() async throws {
        let values = try await withWatchdog(seconds: 60) { () throws -> [Int] in
            var task = ThrowableTask { 0 }
            for _ in 0..<1_000_000 { task = task.map { $0 &+ 1 } }
            let end = try task.await()
            task = ThrowableTask { 0 }
            return [end, try task.await()]
        }
        #expect(values == [1_000_000, 0])
    }

    /// Each await of a cold task is a new run, so a task awaited from its own work, in a
    /// recursion that ends, is no cycle: composed or plain, it returns its value.
    @Test func aTaskAwaitedFromItsOwnWorkInARecursionThatEndsReturnsItsValue() async throws {
        let composedLevels = LockedValue(0)
        let composedHolder = LockedValue<ThrowableTask<Int>?>(nil)
        let composed = ThrowableTask { 1 }.map { one -> Int in
            let level = composedLevels.update {
                $0 += 1
                return $0
            }
            return level < 3 ? try composedHolder.value!.await() + one : one
        }
        composedHolder.set(composed)
        let plainLevels = LockedValue(0)
        let plainHolder = LockedValue<ThrowableTask<Int>?>(nil)
        let plain = ThrowableTask { () -> Int in
            let level = plainLevels.update {
                $0 += 1
                return $0
            }
            return level < 3 ? try plainHolder.value!.await() + 1 : 1
        }
        plainHolder.set(plain)
        #expect(try await withWatchdog { try composed.await() } == 3)
        #expect(try await withWatchdog { try plain.await() } == 3)
        #expect(composedLevels.value == 3 && plainLevels.value == 3)
    }

    @Test func composedTasksAreCold() throws {
        let runs = LockedValue(0)
        let task = ThrowableTask {
            runs.update {
                $0 += 1; return $0
            }
        }.map { $0 * 10 }
        #expect(runs.value == 0)
        #expect(try task.await() == 10)
        #expect(try task.await() == 20)
    }
}
