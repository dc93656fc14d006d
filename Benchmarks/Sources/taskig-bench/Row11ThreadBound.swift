import Dispatch
import Foundation
import Synchronization
import Taskig

// Row 11: the loads of issue 11 that once took Taskig past every thread limit (load 4) and
// stalled Swift's cooperative pool (load 5), each in a fresh process next to the same load
// written with raw Dispatch or pure Swift concurrency. Thread counts are the whole process's
// (sampler, main thread and Dispatch's own threads included), peaks sampled every ~1 ms.

/// Counts the bodies that started.
final class StartedBodies: Sendable {
    let count = Atomic(0)
}

/// Eight threads that, for a second, each await with a 1 ms timeout work that blocks 50 ms
/// and never checks for cancellation; `waitWithTimeout` is one such await.
func timeoutStorm(_ waitWithTimeout: @escaping @Sendable (_ started: StartedBodies) -> Void) -> [String: Double] {
    let started = StartedBodies()
    let sampler = ThreadSampler()
    let callers = DispatchGroup()
    let end = DispatchTime.now() + 1
    for _ in 0..<8 {
        callers.enter()
        Thread.detachNewThread {
            while DispatchTime.now() < end { waitWithTimeout(started) }
            callers.leave()
        }
    }
    callers.wait()
    return ["peakThreads": Double(sampler.stop()), "bodiesStarted": Double(started.count.load(ordering: .relaxed))]
}

/// Child: the timeout storm with Taskig's `await(timeout:)`.
func childTimeoutStormTaskig() {
    Child.report(
        timeoutStorm { started in
            _ = try? ThrowableTask { () -> Int in
                started.count.add(1, ordering: .relaxed)
                usleep(50_000)
                return 1
            }.await(timeout: 0.001)
        })
}

/// Child: the timeout storm with `global().async` and a semaphore wait with a timeout.
func childTimeoutStormDispatch() {
    Child.report(
        timeoutStorm { started in
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                started.count.add(1, ordering: .relaxed)
                usleep(50_000)
                done.signal()
            }
            _ = done.wait(timeout: .now() + 0.001)
        })
    // Blocked Dispatch threads cannot be joined; end without waiting for them.
    exit(0)
}

/// Child: 2,000 `start()`s of 50 ms work, then every future awaited.
func childStartStormTaskig() {
    let sampler = ThreadSampler(countsTaskigWorkers: true)
    var futures: [Future<Int>] = []
    let loop = seconds {
        futures = (0..<2_000).map { i in
            ThrowableTask { () -> Int in
                usleep(50_000)
                return i
            }.start()
        }
    }
    let all = loop + seconds { precondition(futures.map { try! $0.await() } == Array(0..<2_000)) }
    Child.report([
        "peakThreads": Double(sampler.stop()), "peakTaskigWorkers": Double(sampler.peakTaskigWorkers), "loop": loop,
        "wall": all,
    ])
}

/// Child: 2,000 `global().async` blocks of 50 ms work, then a group wait.
func childStartStormDispatch() {
    let sampler = ThreadSampler()
    let group = DispatchGroup()
    let loop = seconds {
        for _ in 0..<2_000 { DispatchQueue.global().async(group: group) { usleep(50_000) } }
    }
    let all = loop + seconds { group.wait() }
    Child.report(["peakThreads": Double(sampler.stop()), "loop": loop, "wall": all])
}

/// Three threads at once, each running a wait nested four levels deep (4 tasks that each
/// wait for 4 tasks, …, whose leaves sleep 1 ms); `level` is one such wait.
func nestedCallers(_ level: @escaping @Sendable (_ depth: Int) -> Int) -> [String: Double] {
    let sampler = ThreadSampler()
    let callers = DispatchGroup()
    let wall = seconds {
        for _ in 0..<3 {
            callers.enter()
            Thread.detachNewThread {
                precondition(level(4) == 256)
                callers.leave()
            }
        }
        callers.wait()
    }
    return ["peakThreads": Double(sampler.stop()), "wall": wall]
}

/// Child: the nested waits with Taskig's `awaitAll`.
func childNestedCallersTaskig() {
    @Sendable func level(_ depth: Int) -> Int {
        guard depth > 0 else {
            usleep(1_000)
            return 1
        }
        return (0..<4).map { _ in Task { level(depth - 1) } }.awaitAll().reduce(0, +)
    }
    Child.report(nestedCallers(level))
}

/// Child: the nested waits with `concurrentPerform`, Dispatch's own blocking fan-out.
func childNestedCallersDispatch() {
    @Sendable func level(_ depth: Int) -> Int {
        guard depth > 0 else {
            usleep(1_000)
            return 1
        }
        let total = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in total.add(level(depth - 1), ordering: .relaxed) }
        return total.load(ordering: .relaxed)
    }
    Child.report(nestedCallers(level))
}

/// The longest a 1 ms heartbeat on Swift's cooperative pool overslept while `load` ran.
func heartbeatStall(_ load: @escaping @Sendable () async -> Int) -> Double {
    blockingOnSwiftConcurrency {
        let finished = Atomic(false)
        let beat = _Concurrency.Task {
            var worst = 0.0
            while !finished.load(ordering: .relaxed) {
                let before = nanoseconds()
                try? await _Concurrency.Task.sleep(nanoseconds: 1_000_000)
                worst = max(worst, Double(nanoseconds() - before) / 1e9 - 0.001)
            }
            return worst
        }
        let sum = await load()
        precondition(sum == (0..<10_000).reduce(0, +))
        finished.store(true, ordering: .relaxed)
        return await beat.value
    }
}

/// Child: a task group awaiting the `value` of 10,000 Taskig tasks that block 1 ms, then, for
/// comparison, 10,000 Swift tasks that suspend 1 ms; the heartbeat's worst stall in each.
func childHeartbeat() {
    let taskig = heartbeatStall {
        await withTaskGroup(of: Int.self) { group in
            for i in 0..<10_000 {
                group.addTask {
                    await Task { () -> Int in
                        usleep(1_000)
                        return i
                    }.value
                }
            }
            return await group.reduce(0, +)
        }
    }
    let swift = heartbeatStall {
        await withTaskGroup(of: Int.self) { group in
            for i in 0..<10_000 {
                group.addTask {
                    try? await _Concurrency.Task.sleep(nanoseconds: 1_000_000)
                    return i
                }
            }
            return await group.reduce(0, +)
        }
    }
    Child.report(["taskigStall": taskig, "swiftStall": swift])
}

func runThreadBoundRow(into table: Table, repetitions: Int) {
    progress("Row 11: thread bound under issue 11's loads, and the cooperative pool's heartbeat")
    let limit = max(64, 4 * ProcessInfo.processInfo.activeProcessorCount)
    func peak(_ runs: [[String: Double]]) -> Int { Int(runs.map { $0["peakThreads"]! }.max()!) }
    func workers(_ runs: [[String: Double]]) -> Int { Int(runs.map { $0["peakTaskigWorkers"]! }.max()!) }
    func medianOf(_ runs: [[String: Double]], _ key: String) -> Double { median(runs.map { $0[key]! }) }

    let storm = (0..<repetitions).map { _ in Child.run(["timeout-storm-taskig"]) }
    let stormGCD = (0..<repetitions).map { _ in Child.run(["timeout-storm-dispatch"]) }
    table.add(
        TableRow(
            row:
                "11a. 8 threads × 1 s of `await(timeout: 0.001)` on 50 ms work that ignores cancellation: peak threads of the process, bodies started",
            taskig: "\(peak(storm)) threads, \(Int(medianOf(storm, "bodiesStarted"))) bodies",
            baseline:
                "`global().async` + `wait(timeout:)`: \(peak(stormGCD)) threads, \(Int(medianOf(stormGCD, "bodiesStarted"))) bodies",
            ratio: "—", goal: "≤ \(limit) Taskig threads + 8 callers + 4", met: peak(storm) <= limit + 12))

    let starts = (0..<repetitions).map { _ in Child.run(["start-storm-taskig"]) }
    let startsGCD = (0..<repetitions).map { _ in Child.run(["start-storm-dispatch"]) }
    table.add(
        TableRow(
            row:
                "11b. 2,000 × `start()` of 50 ms work, then every future awaited: peak threads, the start loop, the whole",
            taskig:
                "\(peak(starts)) threads (\(workers(starts)) of them Taskig's workers), loop \(formatDuration(medianOf(starts, "loop"))), all \(formatDuration(medianOf(starts, "wall")))",
            baseline:
                "`global().async`: \(peak(startsGCD)) threads, loop \(formatDuration(medianOf(startsGCD, "loop"))), all \(formatDuration(medianOf(startsGCD, "wall")))",
            ratio: "—",
            // The futures are awaited on the child's main thread, whose run-loop turns make
            // Dispatch start 5-11 threads of its own (README, "Threads"), so the bound is on
            // Taskig's workers; the process's peak is reported beside it.
            goal: "≤ \(limit) Taskig threads, loop never blocks (< 50 ms)",
            met: workers(starts) <= limit && medianOf(starts, "loop") < 0.05))

    let nested = (0..<repetitions).map { _ in Child.run(["nested-callers-taskig"]) }
    let nestedGCD = (0..<repetitions).map { _ in Child.run(["nested-callers-dispatch"]) }
    table.add(
        TableRow(
            row: "11c. 3 threads × `awaitAll` nested 4 deep (4 × 4 × 4 × 4 leaves of 1 ms each): peak threads, wall",
            taskig: "\(peak(nested)) threads, \(formatDuration(medianOf(nested, "wall")))",
            baseline:
                "nested `concurrentPerform`: \(peak(nestedGCD)) threads, \(formatDuration(medianOf(nestedGCD, "wall")))",
            ratio: speedup(medianOf(nestedGCD, "wall") / medianOf(nested, "wall")),
            goal: "≤ \(limit) + 3 callers + 4", met: peak(nested) <= limit + 7))

    let beats = (0..<repetitions).map { _ in Child.run(["heartbeat"]) }
    let taskigStall = medianOf(beats, "taskigStall")
    let swiftStall = medianOf(beats, "swiftStall")
    table.add(
        TableRow(
            row:
                "11d. a task group awaiting `value` of 10,000 tasks that block 1 ms: worst stall of a 1 ms heartbeat on the cooperative pool",
            taskig: formatDuration(taskigStall),
            baseline: "10,000 Swift tasks that suspend 1 ms: \(formatDuration(swiftStall))",
            ratio: "\(formatRatio(taskigStall / swiftStall)) the stall",
            goal: "no worse than Swift's own (≤ 2× + 10 ms)", met: taskigStall <= 2 * swiftStall + 0.01))
}
