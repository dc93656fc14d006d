import Dispatch
import Foundation
import Testing

@testable import Taskig

/// Runs nest like structured concurrency: a run started while another run's work executes on
/// the thread is its child and is cancelled with it; `start()` and `async` make independent
/// runs.
@Suite struct RunTreeTests {
    @Test func aNestedAwaitIsCancelledWithItsOuterRun() async throws {
        let inner = RunObserver()
        let outer = ThrowableTask { () -> Int in
            try ThrowableTask { inner.sleep(3) ? 1 : -1 }.await()
        }
        let future = outer.start()
        let result = try await withWatchdog { () -> Result<Int, Error> in
            _ = inner.waitUntilStarted()
            future.cancel()
            return future.awaitResult()
        }
        #expect(throws: CancellableTaskError.taskWasCancelled) { try result?.get() }
        #expect(try await withWatchdog { inner.waitUntilCancellationSeen() } == true)
    }

    @Test func aNestedCollectionWaitIsCancelledWithItsOuterRun() async throws {
        let observers = [RunObserver(), RunObserver()]
        let outer = ThrowableTask { () -> [Int] in
            try observers.map { observer in ThrowableTask { observer.sleep(30) ? 1 : -1 } }.awaitAll()
        }
        // Cancelled once the first task runs, however long the outer run waited for a thread:
        // a timeout instead could find it not started, under ThreadSanitizer with busy loops.
        let future = outer.start()
        let (result, seconds) = try #require(
            await withWatchdog(seconds: 30) { () -> (Result<[Int], Error>, Double)? in
                guard observers[0].waitUntilStarted(within: 20 * timingSlack) else { return nil }
                future.cancel()
                return timed { future.awaitResult() }
            } ?? nil)
        #expect(isCancellation(result.failure))
        // From the cancel, beside two busy loops (load 13–25): 2–5 µs debug, 40 µs ThreadSanitizer; the bodies
        // run 30 s unless the cancellation reaches them.
        #expect(seconds < 1 * timingSlack)
        // A task whose lane had no thread yet when the run was cancelled never starts; every
        // task that did start sees the cancellation.
        #expect(try await withWatchdog { observers[0].waitUntilCancellationSeen() } == true)
        for observer in observers where observer.runs > 0 {
            #expect(try await withWatchdog { observer.waitUntilCancellationSeen() } == true)
        }
    }

    @Test func aFlatMapsInnerTaskIsCancelledWithTheComposedRun() async throws {
        let inner = RunObserver()
        let composed = ThrowableTask { 1 }.flatMap { _ in ThrowableTask { inner.sleep(3) ? 1 : -1 } }
        let future = composed.start()
        // Cancelled from the watchdog's thread: a cooperative pool kept busy by the tests
        // that block could delay this test's own thread past the end of the body.
        let seen = try await withWatchdog { () -> Bool in
            _ = inner.waitUntilStarted()
            future.cancel()
            return inner.waitUntilCancellationSeen()
        }
        #expect(seen == true)
        #expect(!composed.isCancelled)
    }

    @Test func theStepsOfAComposedTaskSeeItsRunCancelled() async throws {
        let step = RunObserver()
        let composed = ThrowableTask { 1 }.map { value in step.sleep(3) ? value : -1 }
        let future = composed.start()
        let seen = try await withWatchdog { () -> Bool in
            _ = step.waitUntilStarted()
            future.cancel()
            return step.waitUntilCancellationSeen()
        }
        #expect(seen == true)
    }

    @Test func aFutureStartedInsideARunIsNotItsChild() async throws {
        let started = LockedValue<Future<Int>?>(nil)
        let futureStarted = DispatchSemaphore(value: 0)
        let independent = RunObserver()
        let outer = ThrowableTask { () -> Int in
            started.set(ThrowableTask { independent.sleep(0.3 * timingSlack) ? 42 : -1 }.start())
            futureStarted.signal()
            _ = RunObserver().sleep(30)
            return 0
        }
        // The outer run is cancelled once its work has started the future, however long that
        // work waited for a thread: a timeout instead found it not started yet, under
        // ThreadSanitizer with busy loops beside the other suites.
        let outerRun = outer.start()
        let value = try await withWatchdog(seconds: 30) { () -> Int? in
            futureStarted.wait()
            outerRun.cancel()
            return try started.value?.await()
        }
        #expect(outerRun.isCancelled)
        #expect(value == 42)
        #expect(!independent.sawCancellation)
    }

    @Test func asyncMakesAnIndependentRun() async throws {
        let asyncCalled = DispatchSemaphore(value: 0)
        let outcome = LockedValue<Result<Int, Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let outer = ThrowableTask { () -> Int in
            ThrowableTask { RunObserver().sleep(0.3 * timingSlack) ? 7 : -1 }.async { result in
                outcome.set(result)
                finished.signal()
            }
            asyncCalled.signal()
            _ = RunObserver().sleep(30)
            return 0
        }
        // Cancelled once its work has called `async`: a child run would never start, or see the
        // cancellation.
        let outerRun = outer.start()
        let ended = try await withWatchdog(seconds: 30) { () -> Bool in
            asyncCalled.wait()
            outerRun.cancel()
            finished.wait()
            return true
        }
        #expect(ended == true)
        #expect(outerRun.isCancelled)
        #expect(try outcome.value?.get() == 7)
    }
}

@Suite struct CurrentRunTests {
    @Test func aHandlerRunsOnceWhenTheRunIsCancelled() async throws {
        let calls = LockedValue(0)
        let observer = RunObserver()
        let task = ThrowableTask { () -> Int in
            ThrowableTask.onCurrentTaskCancelled { calls.update { $0 += 1 } }
            return observer.sleep(3) ? 1 : -1
        }
        let future = task.start()
        _ = try await withWatchdog { () -> Bool in
            _ = observer.waitUntilStarted()
            future.cancel()
            future.cancel()
            return observer.waitUntilCancellationSeen()
        }
        #expect(calls.value == 1, "cancel() runs the handlers before it returns")
    }

    @Test func aHandlerRegisteredAfterTheCancellationRunsAtOnce() async throws {
        let ranAtOnce = LockedValue<Bool?>(nil)
        let observer = RunObserver()
        let task = ThrowableTask { () -> Int in
            _ = observer.sleep(3)
            let registered = LockedValue(false)
            ThrowableTask.onCurrentTaskCancelled { registered.set(true) }
            ranAtOnce.set(registered.value)
            return 0
        }
        let future = task.start()
        _ = try await withWatchdog { () -> Bool in
            _ = observer.waitUntilStarted()
            future.cancel()
            _ = observer.waitUntilCancellationSeen()
            let deadline = DispatchTime.now() + 5
            while ranAtOnce.value == nil && DispatchTime.now() < deadline { sleep(seconds: 0.005) }
            return true
        }
        #expect(ranAtOnce.value == true)
    }

    @Test func aRunThatSeesTheTopOfItsTreeCancelledRunsItsHandlersThen() {
        // The root's first handler holds the cancelling thread before the cancellation reaches
        // the runs below through their links, as the innermost run of a million-deep tree
        // waits for it; meanwhile the leaf's work, on this thread, asks.
        let root = Run(parent: nil, cancellable: true)
        let middle = Run(parent: root, cancellable: false)
        let leaf = Run(parent: middle, cancellable: false)
        let leafHandlerRan = LockedValue(false)
        let propagating = DispatchSemaphore(value: 0)
        let goOn = DispatchSemaphore(value: 0)
        root.onCancel {
            propagating.signal()
            _ = goOn.wait(timeout: .now() + 10 * timingSlack)
        }
        leaf.onCancel { leafHandlerRan.set(true) }
        DispatchQueue.global().async { root.cancel() }
        #expect(propagating.wait(timeout: .now() + 10 * timingSlack) == .success)
        #expect(leaf.isCancelled)
        #expect(leafHandlerRan.value, "the leaf's handler runs when the leaf learns it is cancelled")
        goOn.signal()
    }

    @Test func aHandlerNeverRunsAfterItsRunCompleted() async throws {
        let calls = LockedValue(0)
        let outerObserver = RunObserver()
        let outer = ThrowableTask { () -> Int in
            // The inner run completes; cancelling the outer one later must not reach its handler.
            _ = try ThrowableTask { () -> Int in
                ThrowableTask.onCurrentTaskCancelled { calls.update { $0 += 1 } }
                return 1
            }.await()
            return outerObserver.sleep(3) ? 1 : -1
        }
        let future = outer.start()
        _ = try await withWatchdog { () -> Bool in
            _ = outerObserver.waitUntilStarted()
            future.cancel()
            return outerObserver.waitUntilCancellationSeen()
        }
        #expect(calls.value == 0)
    }

    @Test func aHandlerNeverRunsWhenTheTaskIsCancelledRightAfterItsWaitReturned() async throws {
        // The run used to be closed just after its waiter was released: a `cancel()` made as
        // soon as the value arrived then reached the finished work's handler, in most rounds
        // off the main thread.
        let calls = LockedValue(0)
        let queue = DispatchQueue(label: "taskig.tests.handler-after-completion")
        let rounds = 200
        let finished = try await withWatchdog { () -> Int in
            var finished = 0
            for round in 0..<rounds {
                let task = ThrowableTask(executionQueue: round % 2 == 0 ? .global() : queue) { () -> Int in
                    ThrowableTask.onCurrentTaskCancelled { calls.update { $0 += 1 } }
                    return 1
                }
                // `task` is used again below, so it has another copy while it runs.
                finished += try task.await()
                task.cancel()
                let future = ThrowableTask { () -> Int in
                    ThrowableTask.onCurrentTaskCancelled { calls.update { $0 += 1 } }
                    return 1
                }.start()
                finished += try future.await()
                future.cancel()
                let composedFuture = ThrowableTask { 1 }.map { value -> Int in
                    ThrowableTask.onCurrentTaskCancelled { calls.update { $0 += 1 } }
                    return value
                }.start()
                finished += try composedFuture.await()
                composedFuture.cancel()
            }
            return finished
        }
        #expect(finished == 3 * rounds)
        #expect(calls.value == 0)
    }

    @Test func outsideARunRegisteringDoesNothing() throws {
        let calls = LockedValue(0)
        ThrowableTask.onCurrentTaskCancelled { calls.update { $0 += 1 } }
        #expect(calls.value == 0)
        #expect(!ThrowableTask.isCurrentTaskCancelled)
        try ThrowableTask.checkCancellation()
    }

    @Test func aTaskOfYourOwnStopsItsWorkWhenItsRunIsCancelled() async throws {
        let started = DispatchSemaphore(value: 0)
        let stopped = LockedValue(false)
        let finished = LockedValue(false)
        /// A type of a user's own: its work goes on on a thread of its own until it is told to stop.
        struct Ticker: ThrowableTaskType {
            let started: DispatchSemaphore
            let stopped: LockedValue<Bool>
            let finished: LockedValue<Bool>
            var executionQueue: DispatchQueue { .global() }
            func action(completion: @escaping @Sendable (Result<Int, Error>) -> Void) {
                let stop = LockedValue(false)
                ThrowableTask.onCurrentTaskCancelled {
                    stop.set(true)
                    stopped.set(true)
                }
                Thread.detachNewThread {
                    let deadline = DispatchTime.now() + 5
                    while !stop.value && DispatchTime.now() < deadline { Thread.sleep(forTimeInterval: 0.005) }
                    finished.set(true)
                    completion(.success(stop.value ? -1 : 1))
                }
                started.signal()
            }
        }
        // Cancelled once its work has started, however long it waited for a thread: a timeout
        // instead could find it not started, under ThreadSanitizer with busy loops.
        let future = Ticker(started: started, stopped: stopped, finished: finished).start()
        let (result, seconds) = try #require(
            await withWatchdog(seconds: 30) { () -> (Result<Int, Error>, Double)? in
                guard started.wait(timeout: .now() + 20 * timingSlack) == .success else { return nil }
                future.cancel()
                return timed { future.awaitResult() }
            } ?? nil)
        #expect(isCancellation(result.failure))
        // From the cancel, beside two busy loops (load 13–25): 2–5 µs debug, 40 µs ThreadSanitizer; the bodies
        // run 30 s unless the cancellation reaches them.
        #expect(seconds < 1 * timingSlack)
        #expect(stopped.value)
        let deadline = DispatchTime.now() + 5
        while !finished.value && DispatchTime.now() < deadline { sleep(seconds: 0.005) }
        #expect(finished.value, "the work stopped long before its 5 s")
    }
}
