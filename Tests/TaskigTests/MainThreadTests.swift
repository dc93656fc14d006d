import Dispatch
import Foundation
import XCTest

@testable import Taskig

/// XCTest runs its tests on the main thread, so these wait there, as a script does.
final class MainThreadTests: MainThreadTestCase {
    /// A step on the main actor may use main-actor-isolated types, in Swift 6 mode.
    func testAMainActorStepUsesMainActorIsolatedTypes() throws {
        let status = MainActor.assumeIsolated { StatusLine() }
        let shown = try ThrowableTask { "ready" }.map(on: MainActor.self) { status.show($0) }.await()
        XCTAssertEqual(shown, 1)
        XCTAssertEqual(MainActor.assumeIsolated { status.lines }, ["ready"])
    }

    /// The main thread inside the `sync` of a queue that targets a tagged queue: a task for the
    /// inner queue, first made on a worker during the wait, is handed to the main thread.
    func testATaskForAQueueTheMainThreadHoldsThroughItsSyncIsServed() throws {
        let base = DispatchQueue(label: "taskig.test.main-sync-base")
        let inner = DispatchQueue(label: "taskig.test.main-sync-inner", target: base)
        _ = ThrowableTask(executionQueue: base) { 0 }
        let value = try inner.sync {
            try ThrowableTask { try ThrowableTask(executionQueue: inner) { 42 }.await() }.await()
        }
        XCTAssertEqual(value, 42)
    }

    func testTheseRunOnTheMainThread() {
        XCTAssertTrue(Thread.isMainThread)
    }

    func testAwaitingATaskOnTheMainQueueRunsIt() {
        XCTAssertEqual(Task<Bool>(executionQueue: .main) { Thread.isMainThread }.await(), true)
    }

    func testAwaitingATaskThatCompletesThroughTheMainQueue() throws {
        let task = ThrowableTask<Int> { done in
            runLater(0.02) {
                DispatchQueue.main.async { done(.success(3)) }
            }
        }
        XCTAssertEqual(try task.await(), 3)
    }

    func testTheMainQueueKeepsRunningDuringAWait() {
        let ranMeanwhile = LockedValue(false)
        DispatchQueue.main.async { ranMeanwhile.set(true) }
        _ = Task { sleep(seconds: 0.05) }.throwableTask.awaitResult()
        let waited = Task<Bool> { done in
            runLater(0.05) { done(ranMeanwhile.value) }
        }.await()
        XCTAssertTrue(waited)
    }

    func testCollectionWaitsOnTheMainThread() throws {
        let values = (0..<4).map { i in Task<Int>(executionQueue: .main) { i } }.awaitAll()
        XCTAssertEqual(values, [0, 1, 2, 3])
        let first = try [ThrowableTask<Int> { done in DispatchQueue.main.async { done(.success(1)) } }].awaitFirst()
        XCTAssertEqual(first, 1)
    }

    /// Lanes on the main queue, awaited from the main thread, run on the main thread itself; the
    /// global work of their tasks still runs on a worker, never on the main thread (the rule's
    /// lanes row, ``RunPlacement/ofLanes(on:mayEndEarly:isRace:someTaskIsBound:)``).
    func testLanesOnTheMainQueueLeaveGlobalWorkToAWorker() throws {
        let throwing = try (0..<3).map { _ in ThrowableTask { Thread.isMainThread } }.awaitAll(.main)
        XCTAssertEqual(throwing, [false, false, false])
        let plain = (0..<3).map { _ in Task { Thread.isMainThread } }.awaitAll(.main)
        XCTAssertEqual(plain, [false, false, false])
    }

    func testTimeoutOnTheMainThread() {
        let start = DispatchTime.now()
        // Holds its handler for an hour: a handler released uncalled would fail the run at once.
        let neverEnds = ThrowableTask<Int> { done in
            DispatchQueue.global().asyncAfter(deadline: .now() + 3600) { done(.success(0)) }
        }
        XCTAssertThrowsError(try neverEnds.await(timeout: 0.1)) { error in
            XCTAssertTrue(isTimedOut(error))
        }
        // Beside two busy loops (load 13–25): 0.100–0.104 s debug, 0.103–0.104 s ThreadSanitizer; a timeout
        // that never fired would hang.
        XCTAssertLessThan(secondsSince(start), 1)
    }
}

/// A main-actor-isolated type, as a view or a view model is.
@MainActor
private final class StatusLine {
    private(set) var lines: [String] = []

    func show(_ line: String) -> Int {
        lines.append(line)
        return lines.count
    }
}
