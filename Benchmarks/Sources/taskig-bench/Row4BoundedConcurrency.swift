import BenchWorkloads
import Dispatch
import Foundation
import Synchronization
import Taskig

// Row 4: awaitAll(concurrency: 50) of 400 tasks that each sleep 20 ms. Counts how many run
// at once and times the whole.

/// Taskig: 400 `Task { usleep(20_000) }` under `awaitAll(concurrency: 50)`.
func taskigSleepers() -> (wall: Double, peak: Int, threads: Int) {
    let counter = RunningCounter()
    let tasks = sleeperTasks(counting: counter)
    let sampler = ThreadSampler()
    let wall = seconds { _ = tasks.awaitAll(concurrency: 50) }
    return (wall, counter.peak, sampler.stop())
}

/// Swift: a task group of width 50 whose children suspend in `Task.sleep`.
func taskGroupSleepers() -> (wall: Double, peak: Int) {
    let counter = RunningCounter()
    let wall = seconds { blockingOnSwiftConcurrency { await taskGroupOfSleepers(counting: counter) } }
    return (wall, counter.peak)
}

func runBoundedConcurrencyRow(into table: Table, repetitions: Int) {
    progress("Row 4: awaitAll(concurrency: 50) of 400 tasks that sleep 20 ms")
    _ = taskigSleepers()
    var taskig: [(wall: Double, peak: Int, threads: Int)] = []
    var group: [(wall: Double, peak: Int)] = []
    for _ in 0..<repetitions {
        taskig.append(taskigSleepers())
        group.append(taskGroupSleepers())
    }
    let wall = median(taskig.map(\.wall))
    let peaks = Set(taskig.map(\.peak)).sorted()
    let groupWall = median(group.map(\.wall))
    let ideal = Double(sleepersCount / 50) * Double(sleepMicroseconds) / 1e6
    table.add(
        TableRow(
            row:
                "4a. 400 × `usleep(20_000)`, `awaitAll(concurrency: 50)`: tasks running at once (peak, every repetition)",
            taskig: peaks.map(String.init).joined(separator: ", "),
            baseline:
                "TaskGroup (width 50): \(Set(group.map(\.peak)).sorted().map(String.init).joined(separator: ", "))",
            ratio: "—", goal: "50", met: peaks == [50]))
    table.add(
        TableRow(
            row:
                "4b. same: wall time vs Swift TaskGroup of width 50 whose children suspend in `Task.sleep` (ideal: 8 waves × 20 ms = \(formatDuration(ideal)))",
            taskig: formatDuration(wall), baseline: formatDuration(groupWall),
            ratio: speedup(groupWall / wall),
            goal: "< 0.25 s", met: wall < 0.25))
}
