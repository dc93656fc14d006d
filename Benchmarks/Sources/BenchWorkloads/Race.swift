import Foundation
import Taskig

// Row 5: the first of a task that takes 10 ms and one that takes 2 s.

/// Taskig's side: the slow task, then the fast one, each returning its place in the race
/// (the fast one 1).
public func slowAndFastTasks() -> [Task<Int>] {
    [
        Task { () -> Int in
            usleep(2_000_000)
            return 2
        },
        Task { () -> Int in
            usleep(10_000)
            return 1
        },
    ]
}

/// The same pair as tasks that can fail.
public func slowAndFastThrowableTasks() -> [ThrowableTask<Int>] {
    [
        ThrowableTask { () throws -> Int in
            usleep(2_000_000)
            return 2
        },
        ThrowableTask { () throws -> Int in
            usleep(10_000)
            return 1
        },
    ]
}

/// Swift's side: a task group racing two children that suspend (and so can be cancelled);
/// returns the winner's value, 1 when the fast child wins.
public func taskGroupRace() async -> Int {
    await withTaskGroup(of: Int.self) { group in
        group.addTask {
            try? await _Concurrency.Task.sleep(nanoseconds: 2_000_000_000)
            return 2
        }
        group.addTask {
            try? await _Concurrency.Task.sleep(nanoseconds: 10_000_000)
            return 1
        }
        let winner = await group.next()!
        group.cancelAll()
        return winner
    }
}
