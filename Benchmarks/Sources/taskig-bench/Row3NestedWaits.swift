import Dispatch
import Foundation
import Synchronization
import Taskig

// Row 3: 5,000 outer tasks at concurrency 50, each blocking-awaiting an inner task that
// sleeps 100 µs. Every variant runs in a fresh child process, so that its thread count is
// its own and Dispatch's pool starts as small as it does in a new program.

let nestedOuterCount = 5_000
let nestedWidth = 50

/// Child: Taskig. `Task { Task { usleep(100) }.await() }`, `awaitAll(concurrency: 50)`.
func childNestedTaskig(outer: Int) {
    let tasks = (0..<outer).map { _ in Task { Task { usleep(100) }.await() } }
    let before = currentThreadCount()
    let sampler = ThreadSampler()
    let wall = seconds { _ = tasks.awaitAll(concurrency: nestedWidth) }
    let peak = sampler.stop()
    Child.report(["wall": wall, "peakThreads": Double(peak), "threadsBefore": Double(before)])
}

/// Child: Taskig, `runs` times back to back in one process (as a benchmark harness or a
/// server loop would call it), with the thread count sampled across all of them.
func childNestedTaskigBackToBack(outer: Int, runs: Int) {
    let sampler = ThreadSampler()
    var walls: [Double] = []
    for _ in 0..<runs {
        let tasks = (0..<outer).map { _ in Task { Task { usleep(100) }.await() } }
        walls.append(seconds { _ = tasks.awaitAll(concurrency: nestedWidth) })
    }
    let peak = sampler.stop()
    Child.report(["wall": median(walls), "peakThreads": Double(peak)])
}

/// Child: Swift concurrency. A task group that keeps 50 children running; each child awaits
/// an inner unstructured `_Concurrency.Task` that either blocks in `usleep(100)` (the same
/// work as Taskig's inner task) or suspends in `Task.sleep(nanoseconds: 100_000)`.
func childNestedTaskGroup(outer: Int, suspending: Bool) {
    let before = currentThreadCount()
    let sampler = ThreadSampler()
    let wall = seconds {
        blockingOnSwiftConcurrency {
            await withTaskGroup(of: Void.self) { group in
                @Sendable func outerWork() async {
                    if suspending {
                        await _Concurrency.Task { try? await _Concurrency.Task.sleep(nanoseconds: 100_000) }.value
                    } else {
                        await _Concurrency.Task { _ = usleep(100) }.value
                    }
                }
                var started = 0
                while started < min(nestedWidth, outer) {
                    group.addTask { await outerWork() }
                    started += 1
                }
                while await group.next() != nil {
                    if started < outer {
                        group.addTask { await outerWork() }
                        started += 1
                    }
                }
            }
        }
    }
    let peak = sampler.stop()
    Child.report(["wall": wall, "peakThreads": Double(peak), "threadsBefore": Double(before)])
}

/// Child: raw GCD. A semaphore keeps 50 outer blocks in flight on `DispatchQueue.global()`;
/// each sends its inner block to `global()` too and waits for it on a semaphore. Gives up
/// after `timeout` seconds and reports how far it got.
func childNestedDispatch(outer: Int, timeout: Double) {
    let completed = Atomic<Int>(0)
    let before = currentThreadCount()
    let sampler = ThreadSampler()
    let finished = DispatchSemaphore(value: 0)
    let start = nanoseconds()
    let submitter = Thread {
        let gate = DispatchSemaphore(value: nestedWidth)
        let group = DispatchGroup()
        for _ in 0..<outer {
            gate.wait()
            group.enter()
            DispatchQueue.global().async {
                let innerDone = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    usleep(100)
                    innerDone.signal()
                }
                innerDone.wait()
                completed.add(1, ordering: .relaxed)
                gate.signal()
                group.leave()
            }
        }
        group.wait()
        finished.signal()
    }
    submitter.start()
    // Watch progress every 50 ms: the first completion tells when the pool had grown enough
    // for an outer block's inner block to get a thread.
    var firstProgressAt = -1.0
    var timedOut = true
    let deadline = DispatchTime.now() + timeout
    while DispatchTime.now() < deadline {
        if finished.wait(timeout: .now() + 0.05) == .success {
            timedOut = false
            break
        }
        if firstProgressAt < 0 && completed.load(ordering: .relaxed) > 0 {
            firstProgressAt = Double(nanoseconds() - start) / 1e9
        }
    }
    let wall = Double(nanoseconds() - start) / 1e9
    let threadsNow = currentThreadCount()
    let peak = sampler.stop()
    Child.report([
        "wall": wall, "timedOut": timedOut ? 1 : 0, "completed": Double(completed.load(ordering: .relaxed)),
        "threadsAtEnd": Double(threadsNow), "peakThreads": Double(peak), "threadsBefore": Double(before),
        "firstProgressAt": firstProgressAt,
    ])
    // Blocked Dispatch threads cannot be joined; end the process without waiting for them.
    exit(0)
}

func runNestedWaitsRow(into table: Table, repetitions: Int, dispatchTimeout: Double) {
    progress("Row 3: 5,000 nested blocking waits at concurrency 50 (each variant in a fresh process)")
    var taskig: [[String: Double]] = []
    var groupBlocking: [[String: Double]] = []
    var groupSuspending: [[String: Double]] = []
    for _ in 0..<repetitions {
        taskig.append(Child.run(["nested-taskig", "\(nestedOuterCount)"]))
        groupBlocking.append(Child.run(["nested-taskgroup", "\(nestedOuterCount)", "usleep"]))
        groupSuspending.append(Child.run(["nested-taskgroup", "\(nestedOuterCount)", "sleep"]))
    }
    let backToBack = (0..<(repetitions * 2)).map { _ in
        Child.run(["nested-taskig-back-to-back", "\(nestedOuterCount)", "10"])
    }
    let taskigWall = median(taskig.map { $0["wall"]! })
    let taskigThreads = taskig.map { $0["peakThreads"]! }.max()!
    let blockingWall = median(groupBlocking.map { $0["wall"]! })
    let suspendingWall = median(groupSuspending.map { $0["wall"]! })
    let groupThreads = (groupBlocking + groupSuspending).map { $0["peakThreads"]! }.max()!

    progress("  raw GCD (fresh process, \(Int(dispatchTimeout)) s cap)…")
    let gcd = Child.run(
        ["nested-dispatch", "\(nestedOuterCount)", "\(dispatchTimeout)"], timeout: dispatchTimeout + 30)
    let gcdCompleted = Int(gcd["completed"]!)
    let gcdText: String
    if gcd["timedOut"]! == 1 {
        // Nothing completes until the pool has a thread for an inner block while 50 outer
        // blocks wait: 50 + 1 Dispatch threads, plus main, the submitter and the sampler.
        let threadsNeeded = Double(nestedWidth + 4)
        let growth = (gcd["threadsAtEnd"]! - gcd["threadsBefore"]!) / gcd["wall"]!
        let estimate = gcd["wall"]! + max(0, threadsNeeded - gcd["threadsAtEnd"]!) / max(growth, 0.01)
        gcdText =
            "gave up at \(formatDuration(gcd["wall"]!)) with \(gcdCompleted) of \(nestedOuterCount) done and \(Int(gcd["threadsAtEnd"]!)) threads; ≈ \(formatDuration(estimate)) extrapolated from the pool's growth"
    } else {
        gcdText = "\(formatDuration(gcd["wall"]!)), peak \(Int(gcd["peakThreads"]!)) threads"
    }

    table.add(
        TableRow(
            row:
                "3a. 5,000 outer × inner `usleep(100)`, concurrency 50: wall time vs Swift TaskGroup (inner blocks in `usleep(100)`)",
            taskig: formatDuration(taskigWall), baseline: formatDuration(blockingWall),
            ratio: speedup(blockingWall / taskigWall), goal: "< 0.1 s", met: taskigWall < 0.1))
    table.add(
        TableRow(
            row: "3b. same, vs Swift TaskGroup whose inner task suspends in `Task.sleep(nanoseconds: 100_000)`",
            taskig: formatDuration(taskigWall), baseline: formatDuration(suspendingWall),
            ratio: speedup(suspendingWall / taskigWall),
            goal: "(information)", met: nil))
    table.add(
        TableRow(
            row: "3c. same, vs raw GCD (`global().async` outer and inner, semaphore waits, 50 in flight)",
            taskig: formatDuration(taskigWall), baseline: gcdText,
            ratio: gcd["timedOut"]! == 1
                ? "Taskig > \(formatRatio(gcd["wall"]! / taskigWall)) faster"
                : "Taskig \(formatRatio(gcd["wall"]! / taskigWall)) faster",
            goal: "(information)", met: nil))
    table.add(
        TableRow(
            row: "3d. peak thread count of the process during 3a (sampled every ~1 ms, sampler included)",
            taskig: "\(Int(taskigThreads)) (before: \(Int(taskig[0]["threadsBefore"]!)))",
            baseline: "TaskGroup \(Int(groupThreads)); raw GCD \(Int(gcd["peakThreads"]!))",
            ratio: "—", goal: "never above 64", met: taskigThreads <= 64))
    let backToBackThreads = backToBack.map { Int($0["peakThreads"]!) }.sorted()
    let over = backToBackThreads.filter { $0 > 64 }.count
    table.add(
        TableRow(
            row:
                "3e. same workload 10× back to back in one process: median wall time; peak thread count of each of \(backToBack.count) processes",
            taskig:
                "\(formatDuration(median(backToBack.map { $0["wall"]! }))); threads \(backToBackThreads.map(String.init).joined(separator: ", "))",
            baseline: "—",
            ratio: "\(over) of \(backToBack.count) processes above 64", goal: "never above 64", met: over == 0))
}
