import Dispatch
import Foundation
import Synchronization
import Taskig

/// Collection waits nested in a task while every other thread Taskig may give ordinary work
/// blocks, so that the pool has no thread free for their lanes. The blocked threads are let go
/// 0.2 s after the wait began; the wait must then end within seconds, not when its stuck task
/// gives up after 30 s.
extension LoadShapes {
    /// A race whose first runner, which the caller's own lane runs, waits until the race is
    /// over (as a runner in a cycle through the race does, which is no deadlock): its second
    /// runner must start once a thread comes free, since a race's runners all start.
    static func nestedRaceOnAFullPool() -> Bool {
        let winner = whileThePoolIsFull { () -> Int in
            let stuckUntilTheRaceIsOver = ThrowableTask { () -> Int in
                let end = DispatchTime.now() + 30
                while !ThrowableTask.isCurrentTaskCancelled && DispatchTime.now() < end { usleep(1_000) }
                return 0
            }
            return try [stuckUntilTheRaceIsOver, ThrowableTask { 7 }].awaitFirst()
        }
        print("race-winner \(winner.map(String.init) ?? "none")")
        return winner == 7
    }

    /// An `awaitAll` at a `concurrency` of 2 whose first task, which the caller's own lane runs,
    /// waits until the second has started: the lane the full pool turned down must start once
    /// a thread comes free, as `concurrency` lets it.
    static func nestedCollectionOnAFullPool() -> Bool {
        let values = whileThePoolIsFull { () -> [Int] in
            let secondStarted = DispatchSemaphore(value: 0)
            let tasks = [
                ThrowableTask { () -> Int in secondStarted.wait(timeout: .now() + 30) == .success ? 0 : -1 },
                ThrowableTask { () -> Int in
                    secondStarted.signal()
                    return 1
                },
            ]
            return try tasks.awaitAll(concurrency: 2)
        }
        print("values \(values.map { "\($0)" } ?? "none")")
        return values == [0, 1]
    }

    /// Timed waits for work that sleeps until its run is cancelled: with no other worker free,
    /// the waiting worker runs the work itself, and the deadline must still cancel that run
    /// (at 50 ms, long before the blocked threads are let go).
    static func timedWaitsOnAFullPool() -> Bool {
        let outcomes = whileThePoolIsFull { () -> [String] in
            let sleepsUntilCancelled = ThrowableTask { () -> Int in
                let end = DispatchTime.now() + 30
                while !ThrowableTask.isCurrentTaskCancelled && DispatchTime.now() < end { usleep(1_000) }
                return 0
            }
            let waits: [() throws -> Int] = [
                { try sleepsUntilCancelled.await(timeout: 0.05) }, { try sleepsUntilCancelled.timeout(0.05).await() },
            ]
            return waits.map { wait in
                do {
                    return "value \(try wait())"
                } catch TaskigError.timedOut {
                    return "timed-out"
                } catch {
                    return "\(error)"
                }
            }
        }
        print("outcomes \(outcomes.map { "\($0)" } ?? "none")")
        return outcomes == ["timed-out", "timed-out"]
    }

    /// Runs `wait` in a task on one of Taskig's workers once every other thread the pool gives
    /// ordinary work is blocked, lets those go 0.2 s later, and returns what `wait` returned:
    /// `nil` when it threw, when the pool could not be filled, or when it ended 10 s or more
    /// after the release.
    static func whileThePoolIsFull<T: Sendable>(_ wait: @escaping @Sendable () throws -> T) -> T? {
        // The documented limit, less the four threads kept for `async` bodies and the waiter's.
        let blockersNeeded = max(64, 4 * ProcessInfo.processInfo.activeProcessorCount) - 4 - 1
        let waitMayBegin = DispatchSemaphore(value: 0)
        let waiter = ThrowableTask { () -> T in
            waitMayBegin.wait()
            return try wait()
        }.start()

        let blockersStarted = Atomic(0)
        let blockersMayEnd = DispatchSemaphore(value: 0)
        let blockers = (0..<(blockersNeeded + 40)).map { _ in
            ThrowableTask { () -> Bool in
                blockersStarted.add(1, ordering: .relaxed)
                blockersMayEnd.wait()
                blockersMayEnd.signal()
                return true
            }
        }
        let blockersDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? blockers.awaitAll(concurrency: blockers.count)
            blockersDone.signal()
        }
        let fillDeadline = DispatchTime.now() + 30
        while blockersStarted.load(ordering: .relaxed) < blockersNeeded && DispatchTime.now() < fillDeadline {
            usleep(1_000)
        }
        let blockersWhenTheWaitBegan = blockersStarted.load(ordering: .relaxed)
        print("blockers-started \(blockersWhenTheWaitBegan) of \(blockersNeeded)")
        waitMayBegin.signal()
        usleep(200_000)
        let released = DispatchTime.now()
        blockersMayEnd.signal()
        let value = try? waiter.await()
        let secondsAfterRelease = Double(DispatchTime.now().uptimeNanoseconds - released.uptimeNanoseconds) / 1e9
        blockersDone.wait()
        print("seconds-after-release \(secondsAfterRelease)")
        return blockersWhenTheWaitBegan >= blockersNeeded && secondsAfterRelease < 10 ? value : nil
    }
}
