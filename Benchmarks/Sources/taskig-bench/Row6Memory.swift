import ClientShapes
import Dispatch
import Foundation
import HeapPeak
import Taskig

// Row 6: the memory one awaitAll adds beyond its input array and its result array.
//
// Each measurement runs in a fresh process: VmHWM (the resident high-water mark) cannot be
// reset. The heap is measured exactly by HeapPeak (every malloc and free of the process,
// counted at its usable size); resident memory (VmRSS / VmHWM) also shows thread stacks,
// which the heap does not.

/// Child: build `count` trivial tasks, then run one awaitAll over them at `concurrency`.
/// Reports the input's bytes per task and awaitAll's own peak, first in a process where
/// Taskig has not run yet (cold: includes starting its worker threads), then once more (warm).
func childMemory(count: Int, concurrency: Int) {
    precondition(HeapCounter.isActive, "malloc does not go through HeapPeak's counting wrappers")
    // Start Taskig's statics and Dispatch without starting worker threads.
    _ = Task { 0 }.await()

    var tasks: [Task<Int>] = []
    let rssBeforeInput = procStatusField("VmRSS:")
    let input = HeapCounter.measure {
        tasks = (0..<count).map { i in Task { i &* 2 } }
    }
    let rssAfterInput = procStatusField("VmRSS:")
    let resultBytes = count * MemoryLayout<Int>.stride

    func measureOnce() -> (overhead: Int, allocations: Int, rssPeakDelta: Int) {
        let rssBefore = procStatusField("VmRSS:")
        var values: [Int] = []
        let reading = HeapCounter.measure {
            values = tasks.awaitAll(concurrency: concurrency)
        }
        let hwm = procStatusField("VmHWM:")
        precondition(values.count == count && values[count - 1] == (count - 1) &* 2)
        values = []
        return (reading.peakBytes - resultBytes, reading.allocations, (hwm - rssBefore) * 1024)
    }
    let cold = measureOnce()
    let warm = measureOnce()
    Child.report([
        "inputBytesPerTask": Double(input.liveBytes) / Double(count),
        "inputRSSBytesPerTask": Double((rssAfterInput - rssBeforeInput) * 1024) / Double(count),
        "coldOverhead": Double(cold.overhead),
        "warmOverhead": Double(warm.overhead),
        "allocationsPerTask": Double(warm.allocations) / Double(count),
        "coldRSSPeakDelta": Double(cold.rssPeakDelta),
        "resultBytes": Double(resultBytes),
    ])
}

/// Child: `count` `ThrowableTask { i &* 2 }` made by a client (ClientShapes), then one
/// fail-fast `try tasks.awaitAll()` at the default concurrency, cold and warm as above: its
/// heap peak beyond the result array, and what the call left allocated when it returned and
/// 100 ms later (the result array, as malloc counts it, and anything the wait had not freed:
/// memory freed after the caller is released is freed on another thread).
func childThrowableMemory(count: Int) {
    precondition(HeapCounter.isActive, "malloc does not go through HeapPeak's counting wrappers")
    _ = try! ThrowableTask { 0 }.await()
    let tasks = trivialThrowableTasks(count)
    let resultBytes = count * MemoryLayout<Int>.stride

    func measureOnce() -> (overhead: Int, left: Int, leftLater: Int) {
        var values: [Int] = []
        var left = 0
        let reading = HeapCounter.measure {
            values = try! tasks.awaitAll()
            left = Int(heap_peak_live_bytes())
            usleep(100_000)
        }
        precondition(values.count == count && values[count - 1] == (count - 1) &* 2)
        values = []
        return (reading.peakBytes - resultBytes, left, reading.liveBytes)
    }
    let cold = measureOnce()
    let warm = measureOnce()
    Child.report([
        "coldOverhead": Double(cold.overhead), "warmOverhead": Double(warm.overhead), "coldLeft": Double(cold.left),
        "coldLeftLater": Double(cold.leftLater), "resultBytes": Double(resultBytes),
    ])
}

func runMemoryRow(into table: Table, repetitions: Int) {
    progress("Row 6: memory of one awaitAll (fresh process per measurement)")
    guard HeapCounter.isAvailable else {
        HeapCounter.noteLeftOut("6a–6e. heap added by one awaitAll", in: table)
        return
    }
    let configurations = [
        (count: 1_000_000, concurrency: 1),
        (count: 1_000_000, concurrency: 8),
        (count: 1_000_000, concurrency: 50),
        (count: 1_000_000, concurrency: 200),
        (count: 100_000, concurrency: 50),
        (count: 3_000_000, concurrency: 50),
    ]
    var byConfiguration: [String: (cold: Double, warm: Double, rss: Double, perTask: Double, allocs: Double)] = [:]
    var inputPerTask: [Double] = []
    var inputRSSPerTask: [Double] = []
    for configuration in configurations {
        let runs = (0..<repetitions).map { _ in
            Child.run(["memory", "\(configuration.count)", "\(configuration.concurrency)"])
        }
        let key = "\(formatCount(configuration.count))@\(configuration.concurrency)"
        // The highest of the repetitions: how many lanes overlap at their peak varies a
        // little from run to run, and a peak is what the goal bounds.
        byConfiguration[key] = (
            runs.map { $0["coldOverhead"]! }.max()!, runs.map { $0["warmOverhead"]! }.max()!,
            runs.map { $0["coldRSSPeakDelta"]! }.max()!, 0, median(runs.map { $0["allocationsPerTask"]! })
        )
        if configuration.count == 1_000_000 {
            inputPerTask += runs.map { $0["inputBytesPerTask"]! }
            inputRSSPerTask += runs.map { $0["inputRSSBytesPerTask"]! }
        }
    }
    let main = byConfiguration["1M@50"]!
    let limit = 8.0 * 1024 * 1024
    table.add(
        TableRow(
            row:
                "6a. heap added by one `awaitAll(concurrency: 50)` over 1M trivial tasks, beyond input and result (cold process / warm; highest of \(repetitions) processes)",
            taskig: "\(formatBytes(main.cold)) / \(formatBytes(main.warm))",
            baseline:
                "result array \(formatBytes(8_000_000)); resident peak Δ (incl. result, thread stacks) \(formatBytes(main.rss))",
            ratio: String(format: "%.1f%% of the result array", main.cold / 8_000_000 * 100),
            goal: "< 8 MiB", met: main.cold < limit && main.warm < limit))
    let concurrencyList = ["1M@1", "1M@8", "1M@50", "1M@200"].map { key in
        "c\(key.split(separator: "@")[1]): \(formatBytes(byConfiguration[key]!.cold))"
    }.joined(separator: ", ")
    let small = byConfiguration["100k@50"]!
    let large = byConfiguration["3M@50"]!
    let byConcurrency = [1, 8, 50, 200].map { (concurrency: $0, bytes: byConfiguration["1M@\($0)"]!.cold) }
    table.add(
        TableRow(
            row:
                "6b. awaitAll's own heap peak by concurrency (1M tasks, cold, highest of \(repetitions)) and by size (c50: 100k / 1M / 3M)",
            taskig: concurrencyList,
            baseline: "100k: \(formatBytes(small.cold)); 1M: \(formatBytes(main.cold)); 3M: \(formatBytes(large.cold))",
            ratio: String(
                format: "1M → 3M: %+.1f KiB, %.3f B per added task", (large.cold - main.cold) / 1024,
                (large.cold - main.cold) / 2_000_000),
            goal: "bounded by concurrency (≤ 1 KiB per lane over c1), not by count",
            // Growing with the count would take at least a bit per task (a bitmap of 2M more
            // tasks is 244 KiB); less than 0.05 B per added task is lane-overlap noise. Trivial
            // tasks use about a lane per core whatever the concurrency, so the peak need not
            // rise with it, only stay within what its lanes could take.
            met: byConcurrency.allSatisfy { $0.bytes <= byConcurrency[0].bytes + 1024 * Double($0.concurrency) }
                && (large.cold - main.cold) / 2_000_000 < 0.05))
    table.add(
        TableRow(
            row: "6c. input: bytes per `Task { i &* 2 }` in a 1M array (heap / resident)",
            taskig: "\(formatBytes(median(inputPerTask))) / \(formatBytes(median(inputRSSPerTask)))",
            baseline: "—", ratio: String(format: "%.2f allocations per task while awaitAll runs (warm)", main.allocs),
            goal: "(report)", met: nil))

    runThrowableMemoryRows(into: table, repetitions: repetitions)
}

/// Row 6d and 6e (issue 21): the fail-fast `awaitAll` of `ThrowableTask`s, whose slots once
/// held optional values copied into the result at the end.
func runThrowableMemoryRows(into table: Table, repetitions: Int) {
    var bySize: [Int: (cold: Double, warm: Double, left: Double, leftLater: Double)] = [:]
    for count in [100_000, 1_000_000, 3_000_000] {
        let runs = (0..<repetitions).map { _ in Child.run(["memory-throwable", "\(count)"]) }
        bySize[count] = (
            runs.map { $0["coldOverhead"]! }.max()!, runs.map { $0["warmOverhead"]! }.max()!,
            runs.map { $0["coldLeft"]! }.max()!, runs.map { $0["coldLeftLater"]! }.max()!
        )
    }
    let main = bySize[1_000_000]!
    let limit = 1024.0 * 1024
    table.add(
        TableRow(
            row:
                "6d. heap added by one fail-fast `try tasks.awaitAll()` (default concurrency) over 1M `ThrowableTask { i &* 2 }`, beyond the result array (cold process / warm; highest of \(repetitions) processes)",
            taskig: "\(formatBytes(main.cold)) / \(formatBytes(main.warm))",
            baseline:
                "the result array: \(formatBytes(8_000_000)) (left allocated, the array included: \(formatBytes(main.left)) when the call returns, \(formatBytes(main.leftLater)) 100 ms later)",
            ratio: String(format: "%.1f%% of the result array", main.cold / 8_000_000 * 100),
            goal: "< 1 MiB", met: main.cold < limit && main.warm < limit))
    let small = bySize[100_000]!
    let large = bySize[3_000_000]!
    table.add(
        TableRow(
            row: "6e. the same by size (cold, highest of \(repetitions)): 100k / 1M / 3M tasks",
            taskig: "\(formatBytes(small.cold)) / \(formatBytes(main.cold)) / \(formatBytes(large.cold))",
            baseline: "result arrays \(formatBytes(800_000)) / \(formatBytes(8_000_000)) / \(formatBytes(24_000_000))",
            ratio: String(format: "%.2f B per task added from 1M to 3M", (large.cold - main.cold) / 2_000_000),
            goal: "(information: bounded by concurrency, not by count)", met: nil))
}
