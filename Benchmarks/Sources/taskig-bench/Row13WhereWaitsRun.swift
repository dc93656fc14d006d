import BenchWorkloads
import ClientShapes
import Dispatch
import Foundation

// Row 13: issue 19, where the work of a wait runs. The shapes are in ClientShapes
// (WhereWaitsRunShapes.swift, Swift 5 mode), each timed next to its baseline in the same run:
// (a) stored tasks awaited in a loop, (b) a task kept in a property, (c) a wait with a
// deadline, all from a plain thread; (d) waits on a command-line program's main thread, in a
// child process, against a Swift script's top-level `await` (the `swift-await-script`
// executable); (e, f) callback tasks under `awaitAll(concurrency: 200)`, in a child process,
// with a watchdog for (f), which hangs on the library as issue 19 found it.

/// How long a child of 13e or 13f may take before it reports that it hangs.
let callbackTasksGiveUpAfter = 10.0

/// Child: 13d's Taskig side, `Task { 1 }.await()` COUNT times on this process's main thread,
/// before any Swift concurrency has been used: seconds per wait and the thread counts, in the
/// same way as `swift-await-script` reports them.
func childMainThreadTaskAwaits(count: Int) {
    precondition(Thread.isMainThread)
    let sampler = ThreadSampler()
    let before = currentThreadCount()
    let perWait = taskAwaitsOnThisThread(count)
    let after = currentThreadCount()
    let peak = sampler.stop()
    Child.report(["perWait": perWait, "before": Double(before), "after": Double(after), "peak": Double(peak)])
}

/// Runs `shape` on a new thread of this (child) process while a sampler counts the threads;
/// reports its wall time and the threads gained, or, when it has not returned after
/// `giveUpAfter` seconds, that it hangs, and ends the process.
private func callbackTasksChild(
    giveUpAfter: Double, delivered: CallbackCounter? = nil, _ shape: @escaping @Sendable () -> Double
) {
    let sampler = ThreadSampler(countsTaskigWorkers: true)
    let outcome = Box<[String: Double]>([:])
    let finished = DispatchSemaphore(value: 0)
    let caller = Thread {
        let before = currentThreadCount()
        let wall = shape()
        let after = currentThreadCount()
        outcome.value = ["wall": wall, "before": Double(before), "after": Double(after)]
        finished.signal()
    }
    caller.start()
    if finished.wait(timeout: .now() + giveUpAfter) == .timedOut {
        Child.report([
            "hung": 1, "delivered": Double(delivered?.count ?? -1), "threads": Double(currentThreadCount()),
            "peak": Double(sampler.stop()), "peakTaskigWorkers": Double(sampler.peakTaskigWorkers),
        ])
        // The waiting threads can never be joined.
        _exit(0)
    }
    var values = outcome.value
    values["hung"] = 0
    values["peak"] = Double(sampler.stop())
    values["peakTaskigWorkers"] = Double(sampler.peakTaskigWorkers)
    if let delivered { values["delivered"] = Double(delivered.count) }
    Child.report(values)
}

/// Child: 13e, COUNT `Task<Int> { done in global().asyncAfter(0.05) { done(i) } }` awaited
/// with `awaitAll(concurrency: 200)` from a plain thread.
func childTimerCallbackTasks(count: Int) {
    callbackTasksChild(giveUpAfter: callbackTasksGiveUpAfter) { timerCallbackTasksAwaitAll(count) }
}

/// Child: 13e's baseline, the same COUNT timers with a `DispatchGroup` wait.
func childTimerCallbacksDispatch(count: Int) {
    callbackTasksChild(giveUpAfter: callbackTasksGiveUpAfter) { timerCallbacksDispatchGroup(count) }
}

/// Child: 13f, COUNT `Task<Int> { done in Task { i }.async { done($0) } }` awaited with
/// `awaitAll(concurrency: 200)` from a plain thread.
func childTaskCallbackTasks(count: Int, giveUpAfter: Double) {
    let delivered = CallbackCounter()
    callbackTasksChild(giveUpAfter: giveUpAfter, delivered: delivered) {
        taskCallbackTasksAwaitAll(count, delivered: delivered)
    }
}

/// "15.25 µs (10.92 µs–24.63 µs)": the median of `values` and their range.
private func medianAndRange(_ values: [Double]) -> String {
    "\(formatDuration(median(values))) (\(formatDuration(values.min()!))–\(formatDuration(values.max()!)))"
}

/// "4" or "4–9": the lowest and highest of `counts`.
private func countRange(_ counts: [Int]) -> String {
    counts.min()! == counts.max()! ? "\(counts[0])" : "\(counts.min()!)–\(counts.max()!)"
}

/// The Swift script of 13d's baseline, built beside taskig-bench (`swift build -c release`
/// builds it; `swift run … taskig-bench` builds it too, as a dependency).
private var swiftAwaitScript: URL {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("swift-await-script")
}

func runWhereWaitsRunRow(into table: Table, repetitions: Int, processRepetitions: Int) {
    progress("Row 13: where waits run (issue 19): stored tasks, waits with a deadline, the main thread, callback tasks")
    let waits = 10_000
    // Warm-up: the worker pool, Dispatch's pool and the metadata caches.
    _ = onFreshThread { try! storedThrowableTaskAwaits(1_000) }
    _ = onFreshThread { try! freshThrowableTaskAwaits(1_000) }
    _ = onFreshThread { try! heldTaskAwaits(1_000) }
    _ = onFreshThread { try! timedThrowableTaskAwaits(1_000) }
    _ = onFreshThread { globalAsyncSemaphoreWaits(1_000) }

    var stored: [Double] = []
    var fresh: [Double] = []
    var held: [Double] = []
    var timed: [Double] = []
    var dispatch: [Double] = []
    // Interleaved, so that a burst of load from elsewhere hits every variant alike; each on a
    // plain thread of its own.
    for _ in 0..<repetitions {
        stored.append(onFreshThread { try! storedThrowableTaskAwaits(waits) })
        fresh.append(onFreshThread { try! freshThrowableTaskAwaits(waits) })
        held.append(onFreshThread { try! heldTaskAwaits(waits) })
        timed.append(onFreshThread { try! timedThrowableTaskAwaits(waits) })
        dispatch.append(onFreshThread { globalAsyncSemaphoreWaits(waits) })
    }
    let s = median(stored)
    let f = median(fresh)
    let h = median(held)
    let t = median(timed)
    let d = median(dispatch)
    let baselines =
        "fresh `try ThrowableTask { 1 }.await()`: \(medianAndRange(fresh)); "
        + "`global().async` + semaphore: \(medianAndRange(dispatch))"
    let storedGoal = max(3 * f, f + 200e-9)
    table.add(
        TableRow(
            row:
                "13a. `for t in tasks { try t.await() }` over 10,000 stored `ThrowableTask { i }` (made in the timing), plain thread, per wait",
            taskig: medianAndRange(stored),
            baseline: baselines,
            ratio: "\(formatRatio(s / f)) a fresh task's wait; \(formatRatio(s / d)) GCD's",
            goal: "≤ max(3×, +200 ns) a fresh task's wait (≤ \(formatDuration(storedGoal)))", met: s <= storedGoal))
    table.add(
        TableRow(
            row:
                "13b. `try holder.task.await()`, one task kept in a property of a class, awaited 10,000 times, plain thread, per wait",
            taskig: medianAndRange(held),
            baseline: baselines,
            ratio: "\(formatRatio(h / f)) a fresh task's wait; \(formatRatio(h / d)) GCD's",
            goal: "≤ max(3×, +200 ns) a fresh task's wait (≤ \(formatDuration(storedGoal)))", met: h <= storedGoal))
    table.add(
        TableRow(
            row: "13c. `try ThrowableTask { 1 }.await(timeout: 10)`, plain thread, per wait",
            taskig: medianAndRange(timed),
            baseline: "`global().async` + semaphore: \(medianAndRange(dispatch))",
            ratio: "\(formatRatio(t / d)) the cost", goal: "≤ 1.0×", met: t <= d))

    // 13d: fresh processes, Taskig and the Swift script taking turns.
    let mainWaits = 20_000
    var taskigMain: [[String: Double]] = []
    var swiftMain: [[String: Double]] = []
    let script = swiftAwaitScript
    let haveScript = FileManager.default.isExecutableFile(atPath: script.path)
    if !haveScript { progress("  \(script.path) is missing: build it with `swift build -c release`") }
    for _ in 0..<processRepetitions {
        taskigMain.append(Child.run(["main-thread-task-awaits", "\(mainWaits)"]))
        if haveScript { swiftMain.append(Child.run(["\(mainWaits)"], executable: script)) }
    }
    func gained(_ run: [String: Double]) -> Int { Int(max(run["peak"]!, run["after"]!) - run["before"]!) }
    func threads(_ runs: [[String: Double]]) -> String {
        // Every process's gain: on the main thread they spread widely from one to the next.
        let gains = runs.map(gained).sorted().map { "\($0)" }.joined(separator: ", ")
        return "+\(countRange(runs.map(gained))) threads (\(runs.count) processes: \(gains); "
            + "before: \(Int(runs[0]["before"]!)), peak \(Int(runs.map { $0["peak"]! }.max()!)))"
    }
    let taskigPerWait = median(taskigMain.map { $0["perWait"]! })
    let taskigGained = taskigMain.map(gained).max()!
    let swiftPerWait = swiftMain.isEmpty ? .nan : median(swiftMain.map { $0["perWait"]! })
    table.add(
        TableRow(
            row:
                "13d. 20,000 × `Task { 1 }.await()` on a command-line program's main thread (fresh process), per wait",
            taskig: medianAndRange(taskigMain.map { $0["perWait"]! }),
            baseline: swiftMain.isEmpty
                ? "`swift-await-script` not built"
                : "a script's top-level `_ = await Task.detached { 1 }.value` (`swift-await-script`): "
                    + medianAndRange(swiftMain.map { $0["perWait"]! }),
            ratio: swiftMain.isEmpty ? "—" : "\(formatRatio(taskigPerWait / swiftPerWait)) the cost",
            goal: "≤ 1.0×", met: swiftMain.isEmpty ? nil : taskigPerWait <= swiftPerWait))
    table.add(
        TableRow(
            row:
                "13d′. same: threads the process gained (the highest of the peak and the count after, minus the count before)",
            taskig: threads(taskigMain),
            baseline: swiftMain.isEmpty ? "—" : "the Swift script: \(threads(swiftMain))",
            ratio: "—", goal: "≤ 8 threads gained", met: taskigGained <= 8))

    // 13e: fresh processes, Taskig and the same timers with a DispatchGroup taking turns.
    let callbacks = 200
    var timerTasks: [[String: Double]] = []
    var timerGroup: [[String: Double]] = []
    for _ in 0..<processRepetitions {
        timerTasks.append(Child.run(["timer-callback-tasks", "\(callbacks)"], timeout: 60))
        timerGroup.append(Child.run(["timer-callbacks-dispatch", "\(callbacks)"], timeout: 60))
    }
    func hung(_ runs: [[String: Double]]) -> Int { runs.count { $0["hung"] == 1 } }
    func wall(_ runs: [[String: Double]]) -> String {
        let done = runs.filter { $0["hung"] == 0 }.map { $0["wall"]! }
        let hangs =
            hung(runs) > 0
            ? "; hung (gave up after \(Int(callbackTasksGiveUpAfter)) s) in \(hung(runs)) of \(runs.count)" : ""
        guard !done.isEmpty else {
            return "hangs: gave up after \(Int(callbackTasksGiveUpAfter)) s in all \(runs.count) runs"
        }
        return medianAndRange(done) + hangs
    }
    func callbackThreads(_ runs: [[String: Double]]) -> (text: String, worst: Int) {
        let finished = runs.filter { $0["hung"] == 0 }
        guard !finished.isEmpty else { return ("—", .max) }
        let gains = finished.map { Int(max($0["peak"]!, $0["after"]!) - $0["before"]!) }
        let workers = Int(finished.map { $0["peakTaskigWorkers"]! }.max()!)
        let peak = Int(finished.map { $0["peak"]! }.max()!)
        return ("+\(countRange(gains)) threads (peak \(peak), \(workers) Taskig workers at the peaks)", gains.max()!)
    }
    let timerDone = timerTasks.filter { $0["hung"] == 0 }.map { $0["wall"]! }
    let timerWall = timerDone.isEmpty ? Double.infinity : median(timerDone)
    let groupWall = median(timerGroup.map { $0["wall"]! })
    table.add(
        TableRow(
            row:
                "13e. 200 `Task<Int> { done in global().asyncAfter(+0.05) { done(i) } }`, "
                + "`awaitAll(concurrency: 200)` from a plain thread (fresh process): wall time",
            taskig: wall(timerTasks),
            baseline: "the same 200 timers, `DispatchGroup` wait: \(wall(timerGroup)) (ideal: one wave, 50 ms)",
            ratio: "\(formatRatio(timerWall / groupWall)) the time",
            goal: "< 0.1 s (one wave)", met: hung(timerTasks) == 0 && timerWall < 0.1))
    let timerThreads = callbackThreads(timerTasks)
    table.add(
        TableRow(
            row: "13e′. same: threads the process gained during the call",
            taskig: timerThreads.text,
            baseline: "the `DispatchGroup` wait: \(callbackThreads(timerGroup).text)",
            ratio: "—", goal: "≤ 8 threads gained", met: timerThreads.worst <= 8))

    // 13f: a child that gives up after 10 s (it hangs on the library as issue 19 found it).
    let chained = (0..<(processRepetitions > 3 ? 3 : processRepetitions)).map { _ in
        Child.run(
            ["task-callback-tasks", "\(callbacks)", "\(callbackTasksGiveUpAfter)"],
            timeout: callbackTasksGiveUpAfter + 50)
    }
    let chainedDone = chained.filter { $0["hung"] == 0 }.map { $0["wall"]! }
    let delivered = chained.filter { $0["hung"] == 1 }.map { Int($0["delivered"]!) }
    let chainedThreads = callbackThreads(chained)
    table.add(
        TableRow(
            row:
                "13f. 200 `Task<Int> { done in Task { i }.async { done($0) } }`, "
                + "`awaitAll(concurrency: 200)` from a plain thread (fresh process): wall time, threads",
            taskig: wall(chained)
                + (delivered.isEmpty
                    ? "; \(chainedThreads.text)"
                    : "; when given up, \(countRange(delivered)) of 200 callbacks had come, "
                        + "peak \(Int(chained.map { $0["peak"]! }.max()!)) threads"),
            baseline: "— (ideal: one wave, well under 1 ms of work)",
            ratio: "—", goal: "finishes, < 0.1 s",
            met: chainedDone.count == chained.count && median(chainedDone) < 0.1))
}
