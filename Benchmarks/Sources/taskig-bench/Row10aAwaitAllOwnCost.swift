import ClientShapes
import Dispatch
import Foundation
import Taskig

// Row 10a as issue 21 decided it: the goal is what `awaitAll` adds per task beyond making and
// dropping the tasks, in the shape users write (`(0..<n).map { i in ThrowableTask { … } }`,
// made in the timing by ClientShapes in Swift 5 mode, `awaitAll()` at the default
// concurrency), against `concurrentPerform`'s cost per closure, at 100k and 1M tasks. The
// total, making included, is reported for information: it pays allocations that
// `concurrentPerform`'s prebuilt closures never do. Instructions for the same shapes come from
// `count-instructions.sh make-throwable-tasks await-all-made-tasks concurrent-perform`.

func runAwaitAllOwnCostRow(into table: Table, repetitions: Int) {
    progress("Row 10a (issue 21): awaitAll's own cost beyond making the tasks, at 100k and 1M tasks")
    _ = trivialThrowableTasks(1_000)
    var made: [ThrowableTask<Int>] = []
    let making = HeapCounter.measure { made = trivialThrowableTasks(100_000) }
    let arrayBytesPerTask = MemoryLayout<ThrowableTask<Int>>.stride
    let bytesPerTask = Double(making.liveBytes) / Double(made.count) - Double(arrayBytesPerTask)
    let allocationsPerTask = Double(making.allocations) / Double(made.count)
    made = []

    var ownBySize: [Int: Double] = [:]
    var makeAt100k = 0.0
    for size in [100_000, 1_000_000] {
        let closures = capturingClosures(size)
        let shapes: [() -> Double] = [
            { madeThrowableTasksDropped(size) }, { madeThrowableTasksAwaitAll(size) },
            { concurrentPerformIntoBuffer(closures) },
        ]
        for shape in shapes { _ = shape() }
        // The shapes take turns being first, each after a pause outside the timing, so that
        // none pays for the threads another leaves winding down (see row 12).
        var seconds = Array(repeating: [Double](), count: shapes.count)
        for repetition in 0..<repetitions {
            for turn in 0..<shapes.count {
                let shape = (repetition + turn) % shapes.count
                Thread.sleep(forTimeInterval: 0.02)
                seconds[shape].append(shapes[shape]())
            }
        }
        let (make, total, perform) = (median(seconds[0]), median(seconds[1]), median(seconds[2]))
        let own = total - make
        ownBySize[size] = own
        if size == 100_000 { makeAt100k = make }
        let grows = size == 100_000 ? nil : own / ownBySize[100_000]!
        table.add(
            TableRow(
                row:
                    "10a. own cost of `try tasks.awaitAll()` (default concurrency) per task beyond making and dropping the tasks, \(formatCount(size)) `ThrowableTask { i &* 2 }` made by `(0..<n).map` in the timing",
                taskig:
                    "\(formatDuration(own)) (made and awaited \(formatDuration(total)), made and dropped \(formatDuration(make)))",
                baseline: "`concurrentPerform` over prebuilt closures into a buffer: \(formatDuration(perform))",
                ratio: "\(formatRatio(own / perform)) the cost"
                    + (grows.map { "; \(formatRatio($0)) the own cost at 100k" } ?? ""),
                goal: size == 100_000 ? "≤ 2×" : "≤ 2×, not growing (≤ 1.25× the 100k figure)",
                met: own <= 2 * perform && (grows ?? 1) <= 1.25))
        if size == 1_000_000 {
            table.add(
                TableRow(
                    row: "10a total. the same at 1M, making included, per task",
                    taskig: formatDuration(total), baseline: "`concurrentPerform`: \(formatDuration(perform))",
                    ratio: "\(formatRatio(total / perform)) the cost", goal: "(information)", met: nil))
        }
    }
    table.add(
        TableRow(
            row: "10a making. making and dropping one `ThrowableTask { i &* 2 }` in `(0..<n).map`, 100k tasks",
            taskig: "\(formatDuration(makeAt100k)); "
                + (HeapCounter.isAvailable
                    ? "\(String(format: "%.2f", allocationsPerTask)) allocations, \(formatBytes(bytesPerTask)) of heap per task"
                    : "heap not counted: \(HeapCounter.unavailableReason)"),
            baseline: "the array's own \(arrayBytesPerTask) B per task",
            ratio: "—", goal: "(report; instructions: `count-instructions.sh make-throwable-tasks`)", met: nil))
}
