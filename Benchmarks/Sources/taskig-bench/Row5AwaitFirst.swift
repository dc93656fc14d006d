import Dispatch
import Foundation
import Taskig

// Row 5: awaitFirst over a task that takes 10 ms and one that takes 2 s. Runs in a child
// process, which exits without waiting for the 2 s tasks still sleeping.

func childAwaitFirst() {
    let fast = Task { () -> Int in
        usleep(10_000)
        return 1
    }
    let slow = Task { () -> Int in
        usleep(2_000_000)
        return 2
    }
    var first = 0
    let plain = seconds { first = [slow, fast].awaitFirst() }
    precondition(first == 1, "awaitFirst returned the slow task's value")

    let fastThrowing = ThrowableTask { () throws -> Int in
        usleep(10_000)
        return 1
    }
    let slowThrowing = ThrowableTask { () throws -> Int in
        usleep(2_000_000)
        return 2
    }
    let throwing = seconds { first = try! [slowThrowing, fastThrowing].awaitFirst() }
    precondition(first == 1, "awaitFirst returned the slow task's value")

    // Swift: a task group racing two children that suspend (and so can be cancelled).
    let group = seconds {
        first = blockingOnSwiftConcurrency {
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
    }
    precondition(first == 1, "the task group returned the slow child's value")
    Child.report(["plain": plain, "throwing": throwing, "group": group])
    exit(0)
}

func runAwaitFirstRow(into table: Table, repetitions: Int) {
    progress("Row 5: awaitFirst over a 10 ms and a 2 s task (fresh process each time)")
    let runs = (0..<repetitions).map { _ in Child.run(["await-first"]) }
    let plain = median(runs.map { $0["plain"]! })
    let throwing = median(runs.map { $0["throwing"]! })
    let group = median(runs.map { $0["group"]! })
    let worst = runs.map { max($0["plain"]!, $0["throwing"]!) }.max()!
    table.add(
        TableRow(
            row:
                "5. `[slow2s, fast10ms].awaitFirst()`: time to return (`Task` / `ThrowableTask`; slowest of \(repetitions) in ratio column)",
            taskig: "\(formatDuration(plain)) / \(formatDuration(throwing))",
            baseline: "TaskGroup race with `Task.sleep`: \(formatDuration(group))",
            ratio: "slowest run \(formatDuration(worst))", goal: "≤ 20 ms", met: max(plain, throwing) <= 0.020))
}
