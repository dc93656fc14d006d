import BenchWorkloads
import Dispatch
import Foundation
import Taskig

// Row 5: awaitFirst over a task that takes 10 ms and one that takes 2 s. Runs in a child
// process, which exits without waiting for the 2 s tasks still sleeping.

func childAwaitFirst() {
    var first = 0
    let plain = seconds { first = slowAndFastTasks().awaitFirst() }
    precondition(first == 1, "awaitFirst returned the slow task's value")
    let throwing = seconds { first = try! slowAndFastThrowableTasks().awaitFirst() }
    precondition(first == 1, "awaitFirst returned the slow task's value")
    let group = seconds { first = blockingOnSwiftConcurrency { await taskGroupRace() } }
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
