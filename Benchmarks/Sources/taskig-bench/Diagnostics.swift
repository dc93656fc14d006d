import Foundation
import Taskig

// Single workloads for profilers and for looking closer at one figure, run as
// `.build/release/taskig-bench child NAME ARGS…`, e.g.
//
//   valgrind --tool=callgrind .build/release/taskig-bench child profile-task-await 100000
//   .build/release/taskig-bench child allocations-per-await
//   .build/release/taskig-bench child nested-taskig-back-to-back 5000 10
//   .build/release/taskig-bench child nested-dispatch 5000 70

/// Runs the diagnostic `name`; returns `false` when there is none of that name.
func runDiagnostic(_ name: String, _ arguments: [String]) -> Bool {
    switch name {
    case "profile-task-await":
        // Seconds per `Task { 1 }.await()` over COUNT awaits.
        print(taskigTaskAwait(count: Int(arguments[0])!))
    case "profile-throwable-await":
        print(taskigThrowableTaskAwait(count: Int(arguments[0])!))
    case "allocations-per-await":
        _ = Task { 1 }.await()
        _ = try! ThrowableTask { 1 }.await()
        let plain = HeapCounter.measure { for _ in 0..<1000 { _ = Task { 1 }.await() } }
        let throwing = HeapCounter.measure { for _ in 0..<1000 { _ = try! ThrowableTask { 1 }.await() } }
        print("Task { 1 }.await(): \(Double(plain.allocations) / 1000) allocations")
        print("ThrowableTask { 1 }.await(): \(Double(throwing.allocations) / 1000) allocations")
    case "profile-await-all":
        // Median seconds of one awaitAll over COUNT trivial tasks, of REPETITIONS runs, at
        // CONCURRENCY (default 50).
        let tasks = trivialClosures(Int(arguments[0])!).map { Task(action: $0) }
        let concurrency = arguments.count > 2 ? Int(arguments[2])! : 50
        print(medianOf(Int(arguments[1])!) { awaitAllPerTask(tasks, concurrency: concurrency) } * Double(tasks.count))
    case "await-all-series":
        // Nanoseconds per task of RUNS consecutive awaitAlls over COUNT trivial tasks.
        let tasks = trivialClosures(Int(arguments[0])!).map { Task(action: $0) }
        print(
            (0..<Int(arguments[1])!).map { _ in String(format: "%.1f", awaitAllPerTask(tasks) * 1e9) }.joined(
                separator: " "))
    case "concurrent-perform-series":
        let closures = trivialClosures(Int(arguments[0])!)
        print(
            (0..<Int(arguments[1])!).map { _ in String(format: "%.1f", concurrentPerformPerItem(closures) * 1e9) }
                .joined(separator: " "))
    case "sleepers-threads":
        // Row 4 RUNS times in one process, with PAUSE microseconds between runs.
        for _ in 0..<Int(arguments[0])! {
            let run = taskigSleepers()
            print("wall \(run.wall) s, \(run.peak) running at once, peak \(run.threads) threads")
            if arguments.count > 1 { usleep(UInt32(arguments[1])!) }
        }
    default:
        return false
    }
    return true
}
