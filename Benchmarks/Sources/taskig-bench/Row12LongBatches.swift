import ClientShapes
import Dispatch
import Foundation

// Row 12: issue 13's long batches: `completions` and `awaitAll(progress:)` over 100,000
// trivial `ThrowableTask`s, made and dropped in the timing (ClientShapes, Swift 5 mode), each
// against `awaitAllResults` without a progress, taken in the same run, repetitions
// interleaved so that the machine's noise falls on all three alike.

func runLongBatchesRow(into table: Table, repetitions: Int) {
    progress("Row 12: long batches: completions and a counted Progress against awaitAllResults")
    let closures = capturingClosures(100_000)
    let warmUp = Array(closures.prefix(10_000))
    _ = throwableTasksAwaitAllResults(warmUp)
    _ = throwableTasksCompletions(warmUp)
    _ = throwableTasksAwaitAllCountingProgress(warmUp)

    var results: [Double] = []
    var completions: [Double] = []
    var counted: [Double] = []
    for _ in 0..<repetitions {
        results.append(throwableTasksAwaitAllResults(closures))
        completions.append(throwableTasksCompletions(closures))
        counted.append(throwableTasksAwaitAllCountingProgress(closures))
    }
    let r = median(results)
    let c = median(completions)
    let p = median(counted)
    let baseline = "`awaitAllResults(concurrency: 50)` of the same tasks, no progress: \(formatDuration(r))"
    table.add(
        TableRow(
            row:
                "12a. `for (offset, result) in tasks.completions(concurrency: 50)` over 100,000 `ThrowableTask(action:)`s, made and dropped in the timing, per task",
            taskig: formatDuration(c), baseline: baseline,
            ratio: "\(formatRatio(c / r)) the cost", goal: "≤ 1.10×", met: c <= 1.1 * r))
    table.add(
        TableRow(
            row: "12b. `awaitAll(concurrency: 50, progress:)` of the same tasks, per task",
            taskig: formatDuration(p), baseline: baseline,
            ratio: "\(formatRatio(p / r)) the cost", goal: "≤ 1.10×", met: p <= 1.1 * r))
}
