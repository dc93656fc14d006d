import ClientShapes
import Dispatch
import Foundation
import Taskig

// Row 14 (issue 20): loops written by recursion, as Bolts teaches them. The recursive
// `countdown` (a `flatMap` that makes the next level, then a `map`) next to the same chain
// built by reassignment, in the same run; the memory each pending level holds; and the tail
// form (nothing after the recursive `flatMap`), whose memory should stay flat as it deepens.
// Each memory figure comes from a fresh process (VmHWM cannot be reset), whose heap HeapPeak
// counts exactly.

/// Child: awaits `countdown(levels)` (shape `recursive`) or `tailCountdown(levels)` (shape
/// `tail`) on a thread with a 512 KiB stack, and reports the heap's peak during the wait and
/// the growth of the resident high-water mark.
func childLoopMemory(shape: String, levels: Int) {
    precondition(HeapCounter.isActive, "malloc does not go through HeapPeak's counting wrappers")
    // Start Taskig's statics and Dispatch before measuring.
    _ = ThrowableTask { 0 }.awaitResult()
    let rssBefore = procStatusField("VmRSS:")
    let reading = HeapCounter.measure {
        switch shape {
        case "recursive": _ = recursiveCountdownAwaited(levels: levels)
        case "tail": _ = tailCountdownAwaited(levels: levels)
        default: fatalError("unknown loop shape \(shape)")
        }
    }
    let hwm = procStatusField("VmHWM:")
    Child.report([
        "peakBytes": Double(reading.peakBytes),
        "rssPeakDelta": Double((hwm - rssBefore) * 1024),
    ])
}

/// Bytes of memory the machine has free for new work now (MemAvailable), or zero when unknown.
private func availableMemory() -> Double {
    let lines = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8))?.split(separator: "\n") ?? []
    guard let line = lines.first(where: { $0.hasPrefix("MemAvailable:") }),
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
    else { return 0 }
    return kilobytes * 1024
}

func runLoopsRow(into table: Table, repetitions: Int) {
    progress("Row 14: loops by recursion vs the same chain built by reassignment; their memory")
    _ = recursiveCountdownAwaited(levels: 10_000)
    _ = reassignedCountdownAwaited(levels: 10_000)

    // 14a. Time per level, each size's two loops alternating in one run. Linearity is counted
    // in instructions (`count-instructions.sh`): the wall clock of a million-level loop depends
    // on where glibc put its bodies (see row 7c).
    let sizes = [10_000, 1_000_000]
    var recursive: [Int: Double] = [:]
    var reassigned: [Int: Double] = [:]
    for size in sizes {
        let runs = size >= 1_000_000 ? max(3, repetitions / 2) : repetitions
        var recursiveRuns: [Double] = []
        var reassignedRuns: [Double] = []
        for _ in 0..<runs {
            recursiveRuns.append(recursiveCountdownAwaited(levels: size))
            reassignedRuns.append(reassignedCountdownAwaited(levels: size))
        }
        recursive[size] = median(recursiveRuns)
        reassigned[size] = median(reassignedRuns)
    }
    let million = 1_000_000
    table.add(
        TableRow(
            row:
                "14a. Bolts' recursive `countdown` (`ThrowableTask { i }.flatMap { _ in countdown(i - 1) }.map { $0 + 1 }`), awaited on a 512 KiB stack, per level at 10k / 1M levels, vs the same chain built by reassignment",
            taskig: sizes.map { "\(formatCount($0)): \(formatDuration(recursive[$0]!))" }.joined(separator: ", "),
            baseline: sizes.map { "\(formatCount($0)): \(formatDuration(reassigned[$0]!))" }.joined(separator: ", "),
            ratio: "at 1M: \(speedup(reassigned[million]! / recursive[million]!))",
            goal: "1M levels on 512 KiB; linear (instructions per level at 1M within ±20% of 10k, counted)",
            met: nil))

    // 14b. Memory per pending level of the recursive form.
    guard HeapCounter.isAvailable else {
        HeapCounter.noteLeftOut("14b, 14c. heap peak of the recursive loops", in: table)
        return
    }
    let recursiveMemory = (0..<max(1, repetitions / 3)).map { _ in
        Child.run(["loop-memory", "recursive", "\(million)"], timeout: 300)
    }
    let perLevel = median(recursiveMemory.map { $0["peakBytes"]! }) / Double(million)
    let rssPerLevel = median(recursiveMemory.map { $0["rssPeakDelta"]! }) / Double(million)
    table.add(
        TableRow(
            row: "14b. the same recursive `countdown` at 1M levels: heap peak (and resident peak) per pending level",
            taskig: String(format: "%.0f B (resident %.0f B)", perLevel, rssPerLevel), baseline: "—", ratio: "—",
            goal: "≤ 300 B", met: perLevel <= 300))

    // 14c. The tail form at 1M and 10M levels: memory flat. Ten million levels at what one
    // level holds today could take more memory than the machine has free, so the larger run is
    // made only when it fits in a quarter of it: other work shares the machine.
    let tailAtMillion = Child.run(["loop-memory", "tail", "\(million)"], timeout: 300)
    let tailPeakAtMillion = tailAtMillion["peakBytes"]!
    let tenMillion = 10_000_000
    let projected = tailPeakAtMillion * 10
    let taskigColumn: String
    let ratio: String
    let met: Bool?
    if projected < availableMemory() / 4 {
        let tailAtTenMillion = Child.run(["loop-memory", "tail", "\(tenMillion)"], timeout: 600)
        let growth = tailAtTenMillion["peakBytes"]! - tailPeakAtMillion
        taskigColumn =
            "heap peak 1M: \(formatBytes(tailPeakAtMillion)), 10M: \(formatBytes(tailAtTenMillion["peakBytes"]!))"
        ratio = "growth \(formatBytes(growth))"
        met = growth < 16 * 1024 * 1024
    } else {
        taskigColumn =
            "heap peak 1M: \(formatBytes(tailPeakAtMillion)); 10M not run: about \(formatBytes(projected)) expected, "
            + "\(formatBytes(availableMemory())) free"
        ratio = String(format: "%.0f B per level", tailPeakAtMillion / Double(million))
        met = false
    }
    table.add(
        TableRow(
            row:
                "14c. the tail form (`tailCountdown`: `ThrowableTask { i }.flatMap { _ in tailCountdown(i - 1) }`, nothing after) at 1M and 10M levels, on a 512 KiB stack",
            taskig: taskigColumn, baseline: "—", ratio: ratio, goal: "growth from 1M to 10M < 16 MiB", met: met))
}
