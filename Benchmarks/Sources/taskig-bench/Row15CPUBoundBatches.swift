import ClientShapes
import Dispatch
import Foundation

// Row 15 (issue 21): CPU-bound batches at the default `concurrency`, as a new user writes
// them (ClientShapes, Swift 5 mode), each next to `DispatchQueue.concurrentPerform` over the
// same work. `concurrency` is a bound, not a target: to work that computes, lanes beyond the
// cores add only contention, and each holds its task's memory. Each side runs in fresh
// processes, taking turns, so that the thread peak is the batch's own and the machine's noise
// falls on both alike.

/// How many batches a process runs after its warm-up: their median is the process's figure.
let batchesPerProcess = 3

/// Runs `batch` once at a tenth of its size (Taskig's workers and Dispatch's pool started,
/// the code paged in), then `batchesPerProcess` times with the thread count sampled; reports
/// the median seconds of a batch, the process's CPU time and context switches per batch
/// (which other load on the machine moves less than the wall time), the process's thread peak,
/// and how many Taskig workers are alive right after the last batch (idle ones retire only
/// later). The workers are counted once, not by the sampler: naming every thread at each
/// sample at the peak reads a file per thread every millisecond, which would take CPU time
/// from the batch with the most threads.
func reportSampledBatches(warmUp: () -> Void, batch: () -> Double) {
    warmUp()
    let sampler = ThreadSampler()
    var times: [Double] = []
    let cost = measuringProcess { times = (0..<batchesPerProcess).map { _ in batch() } }
    let peak = sampler.stop()
    Child.report([
        "seconds": median(times), "cpu": cost.cpu / Double(batchesPerProcess),
        "switches": Double(cost.contextSwitches / batchesPerProcess), "peakThreads": Double(peak),
        "taskigWorkers": Double(currentTaskigWorkerCount()),
    ])
}

/// The two sides of rows 15 and 16, as a child's argument.
enum BatchSide: String {
    /// `(…).map { ThrowableTask { … } }.awaitAll()` at the default `concurrency`.
    case taskig
    /// `DispatchQueue.concurrentPerform` over the same work.
    case perform
}

extension BatchWork {
    /// The work as a child's argument: `compute:STEPS` or `fill:BYTES`.
    var argument: String {
        switch self {
        case .compute(let iterations): return "compute:\(iterations)"
        case .fillAndHash(let bytes): return "fill:\(bytes)"
        }
    }

    init(argument: String) {
        let parts = argument.split(separator: ":")
        switch (parts.first, parts.count == 2 ? Int(parts[1]) : nil) {
        case ("compute", let iterations?): self = .compute(iterations: iterations)
        case ("fill", let bytes?): self = .fillAndHash(bytes: bytes)
        default: fatalError("unknown batch work \(argument); expected compute:STEPS or fill:BYTES")
        }
    }
}

/// Child: batches of `count` items of `work` on `side` (see ``reportSampledBatches(warmUp:batch:)``).
func childCPUBatch(side: BatchSide, work: BatchWork, count: Int) {
    func run(_ count: Int) -> Double {
        let expected = work(count - 1)
        let check: ([UInt64]) -> Void = { values in
            precondition(values.count == count && values[count - 1] == expected, "the batch's values are wrong")
        }
        switch side {
        case .taskig: return workTasksAwaitAll(count, work, check: check)
        case .perform: return workConcurrentPerform(count, work, check: check)
        }
    }
    reportSampledBatches(warmUp: { _ = run(max(1, count / 10)) }) { run(count) }
}

/// Both sides' processes of one workload, taking turns, `repetitions` each: each Taskig
/// process and the `concurrentPerform` process after it are a pair.
struct SidesCompared {
    var taskig: [[String: Double]] = []
    var perform: [[String: Double]] = []

    init(repetitions: Int, _ arguments: (BatchSide) -> [String]) {
        for _ in 0..<repetitions {
            taskig.append(Child.run(arguments(.taskig)))
            perform.append(Child.run(arguments(.perform)))
        }
    }

    /// "512 ms (505 ms–530 ms); CPU 1.01 s, 900 context switches; peak 56 threads (51 Taskig
    /// workers)" for one side: medians of the processes, the range of their times.
    func summary(_ side: BatchSide) -> String {
        let runs = side == .taskig ? taskig : perform
        let times = runs.map { $0["seconds"]! }
        let workers = runs.map { $0["taskigWorkers"]! }.max()!
        let cpu = median(runs.map { $0["cpu"]! })
        let switches = Int(median(runs.map { $0["switches"]! }))
        return
            "\(formatDuration(median(times))) (\(formatDuration(times.min()!))–\(formatDuration(times.max()!))); CPU \(formatDuration(cpu)), \(switches) context switches; peak \(Int(runs.map { $0["peakThreads"]! }.max()!)) threads"
            + (workers > 0 ? " (\(Int(workers)) Taskig workers)" : "")
    }

    /// Taskig's over `concurrentPerform`'s, of `key`, for each pair of processes that ran one
    /// after the other.
    func pairedRatios(_ key: String) -> [Double] {
        zip(taskig, perform).map { $0[key]! / $1[key]! }
    }

    /// The median of the pairs' ratios of `key`, which the goal judges: the machine's speed
    /// drifts from one process to the next by more than 5% here (other processes, frequency),
    /// and a pair's two processes see the same drift, where the medians of each side's
    /// processes would each see a different part of it.
    func ratio(_ key: String = "seconds") -> Double {
        median(pairedRatios(key))
    }

    /// The ratio column: the wall time's, which the goal judges, with the range of the pairs'
    /// ratios, and the CPU time's.
    var ratioDescription: String {
        let ratios = pairedRatios("seconds")
        return
            "\(formatRatio(ratio())) the time (pairs \(formatRatio(ratios.min()!))–\(formatRatio(ratios.max()!))); \(formatRatio(ratio("cpu"))) the CPU time"
    }
}

/// Where the work timed alone leaves its values, so that the optimizer keeps it.
nonisolated(unsafe) var workSink: UInt64 = 0

/// The calling thread's CPU seconds in `body`: on a machine that other work shares, the wall
/// time of a single call also counts the time the thread waited for a core.
func threadCPUSeconds(_ body: () -> Void) -> Double {
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
    let start = now()
    body()
    return now() - start
}

func runCPUBoundBatchesRow(into table: Table, repetitions: Int) {
    progress("Row 15: CPU-bound batches at the default concurrency vs concurrentPerform (fresh processes)")
    // Steps of `compute` per second on this machine, so that both sides get tasks of the
    // intended length.
    // The calibration runs the work as the batches do, through `BatchWork`, so that the
    // optimizer sees no more of it here than there.
    let calibration = BatchWork.compute(iterations: 1_000_000)
    let stepSeconds = medianOf(5) { threadCPUSeconds { workSink ^= calibration(7) } }
    let stepsPerSecond = 1_000_000 / stepSeconds
    // About a second of CPU time per batch: half a second of wall time on 2 cores.
    let workloads: [(name: String, work: BatchWork, count: Int)] = [
        ("~50 µs of computation", .compute(iterations: Int(50e-6 * stepsPerSecond)), 20_000),
        ("~0.5 ms of computation", .compute(iterations: Int(0.5e-3 * stepsPerSecond)), 2_000),
        ("~5 ms of computation", .compute(iterations: Int(5e-3 * stepsPerSecond)), 200),
        ("a 1 MiB buffer made, filled, hashed and freed", .fillAndHash(bytes: 1 << 20), 2_000),
    ]
    for (letter, workload) in zip("abcd", workloads) {
        let alone = medianOf(5) { threadCPUSeconds { workSink ^= workload.work(7) } }
        let sides = SidesCompared(repetitions: repetitions) { side in
            ["cpu-batch", side.rawValue, workload.work.argument, "\(workload.count)"]
        }
        table.add(
            TableRow(
                row:
                    "15\(letter). \(formatCount(workload.count)) tasks of \(workload.name) (\(formatDuration(alone)) of CPU each, alone), `(0..<n).map { i in ThrowableTask { work(i) } }`, `awaitAll()` at the default concurrency, whole batch: median (range) of \(repetitions) processes × \(batchesPerProcess) batches; the ratio is the median of each pair of processes' ratio",
                taskig: sides.summary(.taskig),
                baseline: "`concurrentPerform` over the same work: \(sides.summary(.perform))",
                ratio: sides.ratioDescription, goal: "≤ 1.05×", met: sides.ratio() <= 1.05))
    }
}
