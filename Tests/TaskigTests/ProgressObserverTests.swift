import Dispatch
import Foundation
import Testing
import XCTest

@testable import Taskig

/// A progress that calls `observer` synchronously each time its completed count is set, as
/// KVO calls observers on Darwin (a `ProgressView`, `observe(_:)`); Linux has no KVO, so a
/// subclass stands in for it.
final class ObservedProgress: Progress, @unchecked Sendable {
    private let observer: @Sendable (ObservedProgress) -> Void

    init(total: Int64 = 0, observer: @escaping @Sendable (ObservedProgress) -> Void) {
        self.observer = observer
        super.init(parent: nil, userInfo: nil)
        totalUnitCount = total
    }

    override var completedUnitCount: Int64 {
        didSet { observer(self) }
    }
}

/// Observers of a wait's `Progress`, and its cancellation handler, may call back into Taskig:
/// the wait changes the progress outside every lock of its own, in order, and has applied
/// every change when it returns. Debug builds use an error-checking mutex (see
/// ``Platform/Lock``), so an observer run under one of Taskig's locks would stop the test with
/// "a lock was taken again" here, as Darwin's lock does, rather than hang.
@Suite struct ProgressObserverTests {
    /// `count` tasks that each return their index after `seconds`.
    private func tasks(_ count: Int, seconds: Double = 0.001) -> [ThrowableTask<Int>] {
        (0..<count).map { i in
            ThrowableTask { () -> Int in
                sleep(seconds: seconds)
                return i
            }
        }
    }

    /// An observer that starts another wait, with a progress of its own, and cancels another
    /// task, on each change: the wait ends with every value, and its counts are all applied,
    /// in rising order, and every observer call has returned, when it returns.
    @Test func aFractionObserverThatStartsAnotherWaitAndCancelsATask() async throws {
        let seen = LockedValue<[Int64]>([])
        let nestedResults = LockedValue<[[Int]]>([])
        let victim = ThrowableTask { 0 }
        let progress = ObservedProgress { progress in
            seen.update { $0.append(progress.completedUnitCount) }
            let nested = try? [ThrowableTask { 1 }, ThrowableTask { 2 }].awaitAll(progress: Progress(totalUnitCount: 0))
            nestedResults.update { $0.append(nested ?? []) }
            victim.cancel()
            // A slow observer: the wait must still return only once it has seen every count.
            sleep(seconds: 0.001)
        }
        let values = try await withWatchdog { try tasks(20).awaitAll(concurrency: 4, progress: progress) }
        #expect(values == Array(0..<20))
        #expect(progress.completedUnitCount == 20 && progress.totalUnitCount == 20)
        #expect(seen.value.last == 20 && seen.value == seen.value.sorted(), "\(seen.value)")
        // Every observer call has returned, its own wait done, before the outer wait returns.
        #expect(nestedResults.value.count == seen.value.count && nestedResults.value.allSatisfy { $0 == [1, 2] })
        #expect(victim.isCancelled)
    }

    /// An observer that cancels the progress it observes once five tasks have settled: the
    /// wait ends cancelled. The other tasks run until their run is cancelled, so that only the
    /// cancellation can end the wait in time.
    @Test func aFractionObserverThatCancelsTheWaitsOwnProgress() async throws {
        let progress = ObservedProgress { progress in
            if progress.completedUnitCount >= 5 { progress.cancel() }
        }
        let untilCancelled = (0..<20).map { _ in
            ThrowableTask { () -> Int in
                let end = DispatchTime.now() + 60
                while !ThrowableTask.isCurrentTaskCancelled && DispatchTime.now() < end { sleep(seconds: 0.002) }
                return -1
            }
        }
        let error = try await withWatchdog(seconds: 20) {
            thrownError { try (tasks(5) + untilCancelled).awaitAll(concurrency: 2, progress: progress) }
        }
        #expect(error.flatMap { $0 as? CancellableTaskError } == .taskWasCancelled)
        #expect(progress.isCancelled)
    }

    /// An observer of a fold's progress that starts a collection wait with another progress.
    @Test func aFractionObserverOfAFoldStartsAnotherWait() async throws {
        let nestedSums = LockedValue<[Int]>([])
        let progress = ObservedProgress { _ in
            let nested = (try? tasks(3).awaitAll(progress: ObservedProgress { _ in }))?.reduce(0, +) ?? -1
            nestedSums.update { $0.append(nested) }
        }
        let sum = try await withWatchdog {
            try [1, 2, 3, 4].awaitReduce(0, progress: progress) { sum, n in ThrowableTask { sum + n } }
        }
        #expect(sum == 10)
        #expect(nestedSums.value == [3, 3, 3, 3])
        #expect(progress.completedUnitCount == 4)
    }

    /// The progress's own cancellation handler, which the wait calls after cancelling itself,
    /// starts another wait with a progress and cancels another task.
    @Test func aCancellationHandlerThatCallsBackIntoTaskig() async throws {
        let progress = Progress(totalUnitCount: 0)
        let handled = DispatchSemaphore(value: 0)
        let nested = LockedValue<[Int]?>(nil)
        let victim = ThrowableTask { 0 }
        progress.cancellationHandler = {
            nested.set(try? [ThrowableTask { 1 }, ThrowableTask { 2 }].awaitAll(progress: Progress(totalUnitCount: 0)))
            victim.cancel()
            handled.signal()
        }
        let observer = RunObserver()
        runLater(0.05) {
            _ = observer.waitUntilStarted(within: 20)
            progress.cancel()
        }
        let error = try await withWatchdog {
            thrownError { try [ThrowableTask { observer.sleep(10) }].awaitAll(progress: progress) }
        }
        #expect(error.flatMap { $0 as? CancellableTaskError } == .taskWasCancelled)
        let handlerRan = try await withWatchdog { handled.wait(timeout: .now() + 10 * timingSlack) == .success }
        #expect(handlerRan == true)
        #expect(nested.value == [1, 2])
        #expect(victim.isCancelled)
    }
}

/// On the main thread, as in an app: an observer that a lane calls, which waits for the main
/// queue, while the main thread waits for the collection.
final class MainThreadProgressObserverTests: MainThreadTestCase {
    func testAnObserverThatCallsMainSyncWhileTheMainThreadWaits() throws {
        let onMain = LockedValue(0)
        let progress = ObservedProgress { _ in
            if Thread.isMainThread {
                onMain.update { $0 += 1 }
            } else {
                DispatchQueue.main.sync { onMain.update { $0 += 1 } }
            }
        }
        let tasks = (0..<30).map { i in
            ThrowableTask { () -> Int in
                sleep(seconds: 0.001)
                return i
            }
        }
        XCTAssertEqual(try tasks.awaitAll(concurrency: 3, progress: progress), Array(0..<30))
        XCTAssertEqual(progress.completedUnitCount, 30)
        XCTAssertGreaterThan(onMain.value, 0)
    }
}
