import ClientShapes
import Dispatch
import Foundation

// Row 10: issue 12's shapes, timed the way a client writes them (ClientShapes, built in
// Swift 5 mode): the tasks, links and futures made and dropped inside the timing, each next
// to its baseline in the same run. Instructions and allocations per item for the same
// shapes come from `count-instructions.sh` (callgrind and dhat).

func runWhatUsersPayRow(into table: Table, repetitions: Int) {
    progress("Row 10: what users pay: ThrowableTask collections, map chains, future fan-out")
    let closures = capturingClosures(100_000)
    // Warm-up: the worker pool, Swift's cooperative pool and the metadata caches.
    _ = throwableTasksAwaitAll(Array(closures.prefix(10_000)))
    _ = concurrentPerformIntoBuffer(Array(closures.prefix(10_000)))
    _ = mapChainBuiltAwaitedAndFreed(links: 10_000)
    _ = globalQueueHops(10_000)
    _ = futureMapStartFanOut(1_000)
    _ = swiftTasksAwaitingOneValue(1_000)

    var awaitAll: [Double] = []
    var perform: [Double] = []
    var chain: [Double] = []
    var hops: [Double] = []
    var fanOut: [Double] = []
    var swiftFanOut: [Double] = []
    for _ in 0..<repetitions {
        awaitAll.append(throwableTasksAwaitAll(closures))
        perform.append(concurrentPerformIntoBuffer(closures))
        chain.append(mapChainBuiltAwaitedAndFreed(links: 100_000))
        hops.append(globalQueueHops(100_000))
        fanOut.append(futureMapStartFanOut(10_000))
        swiftFanOut.append(swiftTasksAwaitingOneValue(10_000))
    }
    let a = median(awaitAll)
    let p = median(perform)
    table.add(
        TableRow(
            row:
                "10a. 100,000 capturing closures wrapped in `ThrowableTask(action:)`, `awaitAll(concurrency: 50)`, tasks made and dropped in the timing, per task",
            taskig: formatDuration(a),
            baseline: "`concurrentPerform` over the same closures into a buffer: \(formatDuration(p))",
            // Information only: the total pays for making the tasks, which the prebuilt closures
            // never do; the goal is what awaitAll adds (Row10aAwaitAllOwnCost.swift).
            ratio: "\(formatRatio(a / p)) the cost", goal: "(information)", met: nil))
    let c = median(chain)
    let h = median(hops)
    table.add(
        TableRow(
            row: "10b. `t = t.map { $0 + 1 }` × 100,000, built, awaited and freed, per link",
            taskig: formatDuration(c),
            baseline: "100,000 `async` hops on `global()`: \(formatDuration(h))",
            ratio: "\(formatRatio(c / h)) the cost", goal: "≤ 1.0×", met: c <= h))
    let f = median(fanOut)
    let s = median(swiftFanOut)
    table.add(
        TableRow(
            row:
                "10c. one `Promise<Int>`, 10,000 × `promise.future.map { $0 + 1 }.start()`, resolved once, every future awaited, per continuation",
            taskig: formatDuration(f),
            baseline: "10,000 Swift `Task`s awaiting one shared value: \(formatDuration(s))",
            ratio: speedup(s / f), goal: "cheaper (> 1×)", met: f < s))
}
