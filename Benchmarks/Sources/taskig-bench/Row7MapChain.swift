import BenchWorkloads
import Dispatch
import Foundation
import Taskig

// Row 7: a chain of `map` links built by reassignment (Bolts' "sequence via reassignment"),
// awaited once, then released. Each link's cost next to one raw GCD hop: a block that
// `async`s the next block onto another queue.

/// A chain of `links` maps built by reassignment, as users write it.
func mapChain(links: Int) -> ThrowableTask<Int> {
    var t = ThrowableTask { 0 }
    for _ in 0..<links { t = t.map { $0 &+ 1 } }
    return t
}

/// Seconds per link to build, run and release a chain of `links` maps:
/// `var t = ThrowableTask { 0 }; for _ in 0..<links { t = t.map { $0 &+ 1 } }; try t.await()`.
///
/// Releasing is timed on a chain that was built and never run: after a run, the worker
/// thread that ran the chain may still hold its links for a moment, so dropping the last
/// reference from the waiting thread would time nothing. Building is timed for both chains.
/// Runs on a thread of its own with a 512 KiB stack (not a big one), so a chain that
/// recursed would crash here.
func taskigMapChain(links: Int) -> (build: Double, run: Double, release: Double) {
    let result = Box<(Double, Double, Double)?>(nil)
    let done = DispatchSemaphore(value: 0)
    let worker = Thread {
        var chain: ThrowableTask<Int>?
        let buildReleased = seconds { chain = mapChain(links: links) }
        let release = seconds { chain = nil }
        let buildRun = seconds { chain = mapChain(links: links) }
        var value = 0
        let run = seconds { value = try! chain!.await() }
        precondition(value == links, "the chain of \(links) maps returned \(value)")
        chain = nil
        let n = Double(links)
        result.value = ((buildReleased + buildRun) / 2 / n, run / n, release / n)
        done.signal()
    }
    worker.stackSize = 512 << 10
    worker.start()
    done.wait()
    return result.value!
}

/// A chain of GCD hops: step `i` runs on `queues[i % queues.count]` and `async`s step `i + 1`;
/// the last step signals a semaphore.
final class DispatchHops: @unchecked Sendable {
    let queues: [DispatchQueue]
    let steps: Int
    let done = DispatchSemaphore(value: 0)
    var value = 0

    init(queues: [DispatchQueue], steps: Int) {
        self.queues = queues
        self.steps = steps
    }

    func step(_ i: Int) {
        guard i < steps else {
            done.signal()
            return
        }
        value &+= 1
        queues[i % queues.count].async { self.step(i + 1) }
    }
}

/// Seconds per hop of `steps` hops that alternate between two serial queues (each hop
/// crosses to the other queue, as a continuation on another queue would).
func dispatchSerialHops(steps: Int) -> Double {
    let hops = DispatchHops(
        queues: [DispatchQueue(label: "taskig-bench.hop.a"), DispatchQueue(label: "taskig-bench.hop.b")],
        steps: steps)
    let elapsed = seconds {
        hops.step(0)
        hops.done.wait()
    }
    precondition(hops.value == steps)
    return elapsed / Double(steps)
}

/// Seconds per hop of `steps` hops, each an `async` onto `DispatchQueue.global()`.
func dispatchGlobalHops(steps: Int) -> Double {
    let hops = DispatchHops(queues: [DispatchQueue.global()], steps: steps)
    let elapsed = seconds {
        hops.step(0)
        hops.done.wait()
    }
    precondition(hops.value == steps)
    return elapsed / Double(steps)
}

func runMapChainRow(into table: Table, repetitions: Int) {
    progress("Row 7: a chain of map links vs GCD hops between queues")
    _ = taskigMapChain(links: 10_000)
    _ = dispatchSerialHops(steps: 10_000)
    _ = dispatchGlobalHops(steps: 10_000)

    var chains: [(build: Double, run: Double, release: Double)] = []
    var serial: [Double] = []
    var global: [Double] = []
    for _ in 0..<repetitions {
        chains.append(taskigMapChain(links: 100_000))
        serial.append(dispatchSerialHops(steps: 100_000))
        global.append(dispatchGlobalHops(steps: 100_000))
    }
    let run = median(chains.map(\.run))
    let build = median(chains.map(\.build))
    let release = median(chains.map(\.release))
    let serialHop = median(serial)
    let globalHop = median(global)
    table.add(
        TableRow(
            row:
                "7a. 100,000 × `t = t.map { $0 &+ 1 }`, then `try t.await()`: run time per link vs one GCD hop between two serial queues (each step `async`s the next onto the other queue)",
            taskig: formatDuration(run), baseline: formatDuration(serialHop),
            ratio: speedup(serialHop / run), goal: "≤ 1× the hop", met: run <= serialHop))
    table.add(
        TableRow(
            row:
                "7a′. same, vs one GCD hop on `global()` (each step `async`s the next onto `DispatchQueue.global()`; one worker thread usually takes the next block at once)",
            taskig: formatDuration(run), baseline: formatDuration(globalHop),
            ratio: speedup(globalHop / run), goal: "≤ 1× the hop", met: run <= globalHop))
    table.add(
        TableRow(
            row: "7b. same chain: building it (100,000 `map` calls) and releasing it, per link",
            taskig: "build \(formatDuration(build)), release \(formatDuration(release))",
            baseline: "—", ratio: "build + run + release: \(formatDuration(build + run + release)) per link",
            goal: "(report)", met: nil))

    // 10k, 100k and 1M links (fewer repetitions for the large one). Whether a chain's cost is
    // linear is counted in instructions (`count-instructions.sh`), not timed here: a run of
    // about 30 ns per link takes as long again when its bodies are out of the cache or out of
    // order in memory, and both depend on the size and on how glibc recycled the last chain's
    // memory (RESULTS.md, "Row 7c"). What this row checks is that no size makes a link cost
    // as much as the GCD hop it replaces.
    let sizes = [10_000, 100_000, 1_000_000]
    var perLink: [Int: (build: Double, run: Double, release: Double)] = [:]
    for size in sizes {
        let runs =
            size == 100_000
            ? chains
            : (0..<(size >= 1_000_000 ? max(3, repetitions / 2) : repetitions)).map { _ in
                taskigMapChain(links: size)
            }
        perLink[size] = (median(runs.map(\.build)), median(runs.map(\.run)), median(runs.map(\.release)))
    }
    /// The deviation from their mean farthest from zero, as a fraction.
    func worstDeviation(_ values: [Double]) -> Double {
        let mean = values.reduce(0, +) / Double(values.count)
        return values.map { $0 / mean - 1 }.max(by: { abs($0) < abs($1) })!
    }
    let runWorst = worstDeviation(sizes.map { perLink[$0]!.run })
    let totalWorst = worstDeviation(sizes.map { perLink[$0]!.build + perLink[$0]!.run + perLink[$0]!.release })
    let runs = sizes.map { "\(formatCount($0)): \(formatDuration(perLink[$0]!.run))" }.joined(separator: ", ")
    let totals = sizes.map {
        "\(formatCount($0)): \(formatDuration(perLink[$0]!.build)) / \(formatDuration(perLink[$0]!.release))"
    }.joined(separator: ", ")
    table.add(
        TableRow(
            row:
                "7c. per link at 10k / 100k / 1M links, chain built, run and released on a thread with a 512 KiB stack (1M must not crash): run (Taskig column), build / release (baseline column)",
            taskig: runs, baseline: totals,
            ratio: String(
                format: "worst from the mean: run %+.0f%%, build + run + release %+.0f%%", runWorst * 100,
                totalWorst * 100),
            goal:
                "run ≤ 1× the `global()` hop of 7a′ at every size (linear: counted in instructions by `count-instructions.sh`)",
            met: sizes.allSatisfy { perLink[$0]!.run <= globalHop }))
}
