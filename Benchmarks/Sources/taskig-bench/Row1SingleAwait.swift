import BenchWorkloads
import Dispatch
import Foundation
import Taskig

// Row 1: one blocking await of a trivial task, from a thread that is not the main thread.

/// Seconds per `Task { 1 }.await()` over `count` awaits.
func taskigTaskAwait(count: Int) -> Double {
    onFreshThread {
        var sum = 0
        let elapsed = seconds {
            for _ in 0..<count { sum &+= Task { 1 }.await() }
        }
        precondition(sum == count)
        return elapsed / Double(count)
    }
}

/// Seconds per `ThrowableTask { 1 }.await()`.
func taskigThrowableTaskAwait(count: Int) -> Double {
    onFreshThread {
        var sum = 0
        let elapsed = seconds {
            for _ in 0..<count { sum &+= try! ThrowableTask { 1 }.await() }
        }
        precondition(sum == count)
        return elapsed / Double(count)
    }
}

/// Seconds per `Task<Int> { done in done(1) }.await()`: a callback task's run, whose
/// handler is not a plain call (count-instructions shape `callback-task-await`).
func taskigCallbackTaskAwait(count: Int) -> Double {
    onFreshThread {
        var sum = 0
        let elapsed = seconds {
            for _ in 0..<count { sum &+= Task<Int> { done in done(1) }.await() }
        }
        precondition(sum == count)
        return elapsed / Double(count)
    }
}

/// Seconds per `ThrowableTask<Int> { done in done(.success(1)) }.await()` (count-instructions
/// shape `callback-throwable-task-await`).
func taskigCallbackThrowableTaskAwait(count: Int) -> Double {
    onFreshThread {
        var sum = 0
        let elapsed = seconds {
            for _ in 0..<count { sum &+= try! ThrowableTask<Int> { done in done(.success(1)) }.await() }
        }
        precondition(sum == count)
        return elapsed / Double(count)
    }
}

/// Seconds per `DispatchQueue.global().async` of the same work plus a semaphore wait for it:
/// what a blocking await that hands the work to another thread costs.
func dispatchAsyncSemaphoreAwait(count: Int) -> Double {
    onFreshThread {
        var sum = 0
        let elapsed = seconds {
            for _ in 0..<count {
                let result = Box(0)
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    result.value = 1
                    done.signal()
                }
                done.wait()
                sum &+= result.value
            }
        }
        precondition(sum == count)
        return elapsed / Double(count)
    }
}

/// Seconds per `await _Concurrency.Task { 1 }.value`, from async code on Swift's pool.
func swiftTaskValue(count: Int) -> Double {
    blockingOnSwiftConcurrency {
        var sum = 0
        let start = nanoseconds()
        for _ in 0..<count { sum &+= await _Concurrency.Task { 1 }.value }
        let elapsed = Double(nanoseconds() - start) / 1e9
        precondition(sum == count)
        return elapsed / Double(count)
    }
}

func runSingleAwaitRow(into table: Table, repetitions: Int) {
    progress("Row 1: single await of a trivial task (non-main thread), \(repetitions) repetitions")
    // Warm every path once (threads, lazily made queues).
    _ = taskigTaskAwait(count: 1_000)
    _ = taskigThrowableTaskAwait(count: 200)
    _ = dispatchAsyncSemaphoreAwait(count: 200)
    _ = swiftTaskValue(count: 1_000)

    var task: [Double] = []
    var throwable: [Double] = []
    var dispatch: [Double] = []
    var swift: [Double] = []
    // Interleaved, so that a burst of load from elsewhere hits every variant alike.
    for _ in 0..<repetitions {
        task.append(taskigTaskAwait(count: 200_000))
        throwable.append(taskigThrowableTaskAwait(count: 5_000))
        dispatch.append(dispatchAsyncSemaphoreAwait(count: 5_000))
        swift.append(swiftTaskValue(count: 50_000))
    }
    let t = median(task)
    let th = median(throwable)
    let d = median(dispatch)
    let s = median(swift)

    let spread = "(\(formatDuration(dispatch.min()!))–\(formatDuration(dispatch.max()!)) over the repetitions)"
    table.add(
        TableRow(
            row: "1a. `Task { 1 }.await()` vs `global().async` + semaphore wait",
            taskig: formatDuration(t), baseline: "\(formatDuration(d)) \(spread)",
            ratio: speedup(d / t), goal: "≥ 50× faster", met: d / t >= 50))
    table.add(
        TableRow(
            row: "1b. `Task { 1 }.await()` vs `await _Concurrency.Task { 1 }.value`",
            taskig: formatDuration(t), baseline: formatDuration(s),
            ratio: speedup(s / t), goal: "no slower (≥ 1×)", met: t <= s))
    table.add(
        TableRow(
            row: "1c. `ThrowableTask { 1 }.await()` vs `global().async` + semaphore wait",
            taskig: formatDuration(th), baseline: formatDuration(d),
            ratio: speedup(d / th), goal: "≥ 50× faster", met: d / th >= 50))
    table.add(
        TableRow(
            row: "1d. `ThrowableTask { 1 }.await()` vs `await _Concurrency.Task { 1 }.value`",
            taskig: formatDuration(th), baseline: formatDuration(s),
            ratio: speedup(s / th),
            goal: "no slower (≥ 1×)", met: th <= s))
}
