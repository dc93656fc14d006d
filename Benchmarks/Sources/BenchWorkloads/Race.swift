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

// Row 5b: a race whose winner (1 ms) is placed last, behind sleepers of 30 ms that block.

/// Taskig's side: `sleepers` tasks that block for 30 ms, then the winner, which blocks for
/// 1 ms; each returns its place (the winner 0).
public func sleepersThenWinner(_ sleepers: Int) -> [ThrowableTask<Int>] {
    (0..<sleepers).map { place in
        ThrowableTask { () throws -> Int in
            usleep(30_000)
            return place + 1
        }
    } + [
        ThrowableTask { () throws -> Int in
            usleep(1_000)
            return 0
        }
    ]
}

/// Swift's side: a task group racing the same children, which suspend in `Task.sleep`
/// (children that blocked would hold the cooperative pool's few threads); returns the winner's
/// place.
public func taskGroupSleepersThenWinner(_ sleepers: Int) async -> Int {
    await withTaskGroup(of: Int.self) { group in
        for place in 0..<sleepers {
            group.addTask {
                try? await _Concurrency.Task.sleep(nanoseconds: 30_000_000)
                return place + 1
            }
        }
        group.addTask {
            try? await _Concurrency.Task.sleep(nanoseconds: 1_000_000)
            return 0
        }
        let winner = await group.next()!
        group.cancelAll()
        return winner
    }
}
