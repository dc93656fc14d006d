// Issue 13's shapes, written as a client writes them (Swift 5 language mode, public API
// only): outcomes as they settle and a counted `Progress`, against `awaitAllResults` without
// one. The tasks are made and dropped inside the timing. Each returns seconds per task.
import Dispatch
import Foundation
import Taskig

/// Seconds per task: the closures wrapped in `ThrowableTask(action:)`, every outcome collected
/// with `awaitAllResults(concurrency: 50)`, no progress.
public func throwableTasksAwaitAllResults(_ closures: [() -> Int]) -> Double {
    let start = DispatchTime.now()
    do {
        let tasks = closures.map { ThrowableTask(action: $0) }
        let results = tasks.awaitAllResults(concurrency: 50)
        precondition(results.count == closures.count)
    }
    return secondsPerItem(since: start, closures.count)
}

/// Seconds per task: the same tasks' outcomes taken in the order they settle from
/// `completions(concurrency: 50)`, summed as a loop would.
public func throwableTasksCompletions(_ closures: [() -> Int]) -> Double {
    let start = DispatchTime.now()
    do {
        let tasks = closures.map { ThrowableTask(action: $0) }
        var seen = 0
        var sum = 0
        for (_, result) in tasks.completions(concurrency: 50) {
            seen += 1
            sum &+= (try? result.get()) ?? 0
        }
        precondition(seen == closures.count && sum != 0)
    }
    return secondsPerItem(since: start, closures.count)
}

/// Seconds per task: the same tasks awaited with `awaitAll(concurrency: 50, progress:)`, the
/// progress made inside the timing.
public func throwableTasksAwaitAllCountingProgress(_ closures: [() -> Int]) -> Double {
    let start = DispatchTime.now()
    do {
        let progress = Progress(totalUnitCount: 0)
        let tasks = closures.map { ThrowableTask(action: $0) }
        let values = try! tasks.awaitAll(concurrency: 50, progress: progress)
        precondition(values.count == closures.count && progress.completedUnitCount == Int64(closures.count))
    }
    return secondsPerItem(since: start, closures.count)
}
