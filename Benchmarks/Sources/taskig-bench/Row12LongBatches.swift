import ClientShapes
import Dispatch
import Foundation

// Row 12: issue 13's long batches: `completions` and `awaitAll(progress:)` over 100,000
// trivial `ThrowableTask`s, made and dropped in the timing (ClientShapes, Swift 5 mode), each
// against `awaitAllResults` without a progress, taken in the same run, repetitions
// interleaved so that the machine's noise falls on all of them alike; twice the usual
// repetitions, since the figures compared are close.

func runLongBatchesRow(into table: Table, repetitions: Int) {
    progress("Row 12: long batches: completions and a counted Progress against awaitAllResults")
    let closures = capturingClosures(100_000)
    let warmUp = Array(closures.prefix(10_000))
    _ = throwableTasksAwaitAllResults(warmUp)
    _ = throwableTasksCompletions(warmUp)
    _ = throwableTasksAwaitAllCountingProgress(warmUp)
    _ = throwableTasksAwaitAll(warmUp)

    // A shape measured right after another pays for some of what that one leaves behind (its
    // threads winding down). Until `f7280f6`, the shape after `completions` came out 10–40%
    // slower than the same shape elsewhere: the loop's last lane freed its 100k tasks on a
    // worker meanwhile. So the shapes take turns being first, and each starts after a pause
    // of 50 ms, outside the timing.
    let shapes: [([() -> Int]) -> Double] = [
        throwableTasksAwaitAllResults, throwableTasksCompletions, throwableTasksAwaitAllCountingProgress,
        throwableTasksAwaitAll,
    ]
    var seconds = Array(repeating: [Double](), count: shapes.count)
    for repetition in 0..<2 * repetitions {
        for turn in 0..<shapes.count {
            let shape = (repetition + turn) % shapes.count
            Thread.sleep(forTimeInterval: 0.05)
            seconds[shape].append(shapes[shape](closures))
        }
    }
    let (results, completions, counted, uncounted) = (seconds[0], seconds[1], seconds[2], seconds[3])
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
    let u = median(uncounted)
    table.add(
        TableRow(
            row:
                "12c. `awaitAll(concurrency: 50)` of the same tasks, no progress, per task (what 12b adds a progress to)",
            taskig: formatDuration(u), baseline: baseline,
            ratio: "\(formatRatio(u / r)) the cost", goal: "(information)", met: nil))
}
