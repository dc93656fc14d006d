import Foundation
import Taskig

// Row 4: 400 tasks that each sleep 20 ms at concurrency 50, counting how many run at once.

/// How many tasks row 4 runs.
public let sleepersCount = 400
/// How long each of them sleeps.
public let sleepMicroseconds: UInt32 = 20_000

/// Taskig's side: `sleepersCount` tasks that block in `usleep`, counted by `counter`.
public func sleeperTasks(counting counter: RunningCounter) -> [Task<Void>] {
    (0..<sleepersCount).map { _ in
        Task {
            counter.enter()
            usleep(sleepMicroseconds)
            counter.leave()
        }
    }
}

/// Swift's side: a task group that keeps 50 children running, each suspending in
/// `Task.sleep` (a blocking `usleep` would hold one of the 2 cooperative threads and take
/// 400 × 20 ms / 2 = 4 s).
public func taskGroupOfSleepers(counting counter: RunningCounter) async {
    await withTaskGroup(of: Void.self) { group in
        @Sendable func sleeper() async {
            counter.enter()
            try? await _Concurrency.Task.sleep(nanoseconds: UInt64(sleepMicroseconds) * 1_000)
            counter.leave()
        }
        var started = 0
        while started < 50 {
            group.addTask { await sleeper() }
            started += 1
        }
        while await group.next() != nil {
            guard started < sleepersCount else { continue }
            group.addTask { await sleeper() }
            started += 1
        }
    }
}
