import BenchWorkloads
import Dispatch
import Foundation
import Taskig

// Row 2: awaitAll(concurrency: 50) of trivial tasks, per item, against
// DispatchQueue.concurrentPerform over the same closures; and how the per-task cost scales.

/// Seconds per task of one `awaitAll(concurrency:)` over `tasks`.
func awaitAllPerTask(_ tasks: [Task<Int>], concurrency: Int = 50) -> Double {
    var values: [Int] = []
    let elapsed = seconds { values = tasks.awaitAll(concurrency: concurrency) }
    precondition(values.count == tasks.count && values.last == (tasks.count - 1) &* 2, "awaitAll returned wrong values")
    return elapsed / Double(tasks.count)
}

/// Seconds per closure of `concurrentPerform` calling each closure and writing its value
/// into a preallocated buffer.
func concurrentPerformPerItem(_ closures: [@Sendable () -> Int]) -> Double {
    let buffer = UnsafeMutableBufferPointer<Int>.allocate(capacity: closures.count)
    defer { buffer.deallocate() }
    nonisolated(unsafe) let output = buffer
    let elapsed = seconds {
        DispatchQueue.concurrentPerform(iterations: closures.count) { i in
            output[i] = closures[i]()
        }
    }
    precondition(buffer[closures.count - 1] == (closures.count - 1) &* 2, "concurrentPerform wrote wrong values")
    return elapsed / Double(closures.count)
}

func runAwaitAllThroughputRow(into table: Table, repetitions: Int) {
    progress("Row 2: awaitAll(concurrency: 50) of trivial tasks vs concurrentPerform")
    let closures = trivialClosures(100_000)
    let tasks = closures.map { Task(action: $0) }
    _ = awaitAllPerTask(tasks)
    _ = concurrentPerformPerItem(closures)
    var taskig: [Double] = []
    var perform: [Double] = []
    // Blocks of 5 consecutive runs of each side, so that each runs warm (its threads just
    // used), as a loop in a program would; the blocks alternate so that load from
    // elsewhere hits both alike.
    var taskigRuns: [Double] = []
    var performRuns: [Double] = []
    for _ in 0..<repetitions {
        let block = (0..<5).map { _ in awaitAllPerTask(tasks) }
        let performBlock = (0..<5).map { _ in concurrentPerformPerItem(closures) }
        taskig.append(median(block))
        perform.append(median(performBlock))
        taskigRuns += block
        performRuns += performBlock
    }
    let t = median(taskig)
    let p = median(perform)
    // concurrentPerform is bimodal here: ~15-25 ns per item when Dispatch leaves the whole
    // batch to one thread, ~45-55 ns when a second thread joins and the two meet on the
    // iteration counter and the buffer's cache lines (RESULTS.md, "what `concurrentPerform`'s
    // fast mode is"). Its best runs are the first mode.
    let bestTaskig = taskigRuns.min()!
    let bestPerform = performRuns.min()!
    table.add(
        TableRow(
            row: "2a. `awaitAll(concurrency: 50)` of 100k `Task { i &* 2 }`, per item, vs `concurrentPerform`",
            taskig: formatDuration(t), baseline: formatDuration(p),
            ratio: "\(formatRatio(t / p)) the cost", goal: "≤ 5×", met: t / p <= 5))
    table.add(
        TableRow(
            row:
                "2a′. same, fastest run of each (\(taskigRuns.count) runs each; `concurrentPerform`'s fastest runs use one thread)",
            taskig: formatDuration(bestTaskig), baseline: formatDuration(bestPerform),
            ratio: "\(formatRatio(bestTaskig / bestPerform)) the cost", goal: "≤ 5×", met: bestTaskig / bestPerform <= 5
        ))

    // Flatness: the same measurement at four sizes. Small runs are repeated more often so
    // that each size gets a similar amount of measuring time.
    let sizes = [1_000, 10_000, 100_000, 1_000_000]
    var perTask: [Int: Double] = [:]
    for size in sizes {
        let sized = trivialClosures(size).map { Task(action: $0) }
        let rounds = max(5, min(301, 3_000_000 / size))
        _ = awaitAllPerTask(sized)
        perTask[size] = medianOf(rounds) { awaitAllPerTask(sized) }
    }
    let mean = sizes.map { perTask[$0]! }.reduce(0, +) / Double(sizes.count)
    let list = sizes.map { "\(formatCount($0)): \(formatDuration(perTask[$0]!))" }.joined(separator: ", ")
    table.add(
        TableRow(
            row: "2b. per-task cost of `awaitAll(concurrency: 50)` at 1k / 10k / 100k / 1M tasks",
            taskig: list, baseline: "their mean \(formatDuration(mean))",
            ratio: String(
                format: "worst %+.0f%% from the mean",
                (sizes.map { perTask[$0]! / mean - 1 }.max(by: { abs($0) < abs($1) })!) * 100),
            // Retired by issue 11: a 1k-task run lasts less than a thread's wake-up here, so the
            // figure measures the host. Kept for information.
            goal: "(information; the ±30% goal is retired)", met: nil))
}
