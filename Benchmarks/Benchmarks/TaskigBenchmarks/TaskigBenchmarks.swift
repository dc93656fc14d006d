import BenchWorkloads
import Benchmark
import Dispatch
import Foundation
import Synchronization
import Taskig

// The goal rows of Taskig's benchmarks, run by the ordo-one harness:
//
//     swift package benchmark
//
// Each row's Taskig benchmark sits next to its baseline ("… | baseline: …") and both run in
// the same invocation. The harness reports distributions (p0…p100) with its own wall-clock,
// malloc and thread metrics; the goal table with ratios, exact heap peaks and 1 ms thread
// sampling comes from `swift run -c release taskig-bench` (see README.md). Raw GCD with
// nested waits (row 3) is only in taskig-bench, which can give up on it after a timeout.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 3,
        maxDuration: .seconds(1),
        maxIterations: 1_000
    )

    singleAwaitBenchmarks()
    awaitAllThroughputBenchmarks()
    nestedWaitBenchmarks()
    boundedConcurrencyBenchmarks()
    awaitFirstBenchmarks()
    memoryBenchmarks()
}

// MARK: - Row 1: one await of a trivial task, off the main thread

/// One long-lived thread that runs the measured loops, so that every await happens on a
/// thread that is not the main thread, whichever thread the harness calls us on. Handing it
/// a loop costs one thread hand-off per 1,000 awaits.
final class OffMainThread: @unchecked Sendable {
    static let shared = OffMainThread()

    private let start = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var job: (() -> Void)?

    private init() {
        let thread = Thread { [self] in
            while true {
                start.wait()
                job?()
                job = nil
                done.signal()
            }
        }
        thread.start()
    }

    func run(_ body: @escaping () -> Void) {
        job = body
        start.signal()
        done.wait()
    }
}

func singleAwaitBenchmarks() {
    let perAwait = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        scalingFactor: .kilo
    )

    Benchmark("1 single await: Task { 1 }.await()", configuration: perAwait) { benchmark in
        OffMainThread.shared.run {
            for _ in benchmark.scaledIterations { blackHole(Task { 1 }.await()) }
        }
    }

    Benchmark("1 single await: ThrowableTask { 1 }.await()", configuration: perAwait) { benchmark in
        OffMainThread.shared.run {
            for _ in benchmark.scaledIterations { blackHole(try! ThrowableTask { 1 }.await()) }
        }
    }

    Benchmark("1 single await | baseline: global().async + semaphore wait", configuration: perAwait) { benchmark in
        OffMainThread.shared.run {
            for _ in benchmark.scaledIterations {
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global().async { done.signal() }
                done.wait()
            }
        }
    }

    Benchmark("1 single await | baseline: await _Concurrency.Task { 1 }.value", configuration: perAwait) {
        benchmark async in
        for _ in benchmark.scaledIterations { blackHole(await _Concurrency.Task { 1 }.value) }
    }
}

// MARK: - Row 2: awaitAll of trivial tasks vs concurrentPerform

// Globals are made on first use, so only the benchmarks that run build them.
let closures100k = trivialClosures(100_000)
let tasks100k = closures100k.map { Task(action: $0) }

func awaitAllThroughputBenchmarks() {
    let whole = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], maxIterations: 200)

    Benchmark("2 awaitAll(concurrency: 50) of 100k trivial tasks", configuration: whole) { benchmark in
        let tasks = tasks100k
        benchmark.startMeasurement()
        blackHole(tasks.awaitAll(concurrency: 50))
    }

    Benchmark("2 awaitAll 100k | baseline: concurrentPerform over the same closures", configuration: whole) {
        benchmark in
        let closures = closures100k
        let buffer = UnsafeMutableBufferPointer<Int>.allocate(capacity: closures.count)
        defer { buffer.deallocate() }
        nonisolated(unsafe) let output = buffer
        benchmark.startMeasurement()
        DispatchQueue.concurrentPerform(iterations: closures.count) { i in output[i] = closures[i]() }
        benchmark.stopMeasurement()
    }

    // The per-task cost at four sizes: time of one awaitAll divided by its task count.
    let perTask = BenchmarkMetric.custom("ns per task", polarity: .prefersSmaller, useScalingFactor: false)
    for size in [1_000, 10_000, 100_000, 1_000_000] {
        let tasks = Box<[Task<Int>]>([])
        Benchmark(
            "2 per-task cost: awaitAll(concurrency: 50) of \(size) tasks",
            configuration: .init(metrics: [.wallClock, perTask], maxIterations: max(5, 2_000_000 / size)),
            closure: { benchmark in
                let start = DispatchTime.now().uptimeNanoseconds
                blackHole(tasks.value.awaitAll(concurrency: 50))
                benchmark.measurement(perTask, Int((DispatchTime.now().uptimeNanoseconds - start) / UInt64(size)))
            },
            setup: { tasks.value = trivialClosures(size).map { Task(action: $0) } },
            teardown: { tasks.value = [] }
        )
    }
}

// MARK: - Row 3: 5,000 nested blocking waits at concurrency 50

func nestedWaitBenchmarks() {
    let nested = Benchmark.Configuration(metrics: [.wallClock, .threads], maxIterations: 20)

    Benchmark(
        "3 nested: 5,000 × Task { Task { usleep(100) }.await() }, awaitAll(concurrency: 50)", configuration: nested
    ) { _ in
        let tasks = (0..<5_000).map { _ in Task { Task { usleep(100) }.await() } }
        blackHole(tasks.awaitAll(concurrency: 50))
    }

    Benchmark(
        "3 nested | baseline: TaskGroup width 50, child awaits _Concurrency.Task { usleep(100) }",
        configuration: .init(metrics: [.wallClock, .threads], maxIterations: 5)
    ) { _ async in
        await withTaskGroup(of: Void.self) { group in
            var started = 0
            while started < 50 {
                group.addTask { await _Concurrency.Task { _ = usleep(100) }.value }
                started += 1
            }
            while await group.next() != nil {
                guard started < 5_000 else { continue }
                group.addTask { await _Concurrency.Task { _ = usleep(100) }.value }
                started += 1
            }
        }
    }
}

// MARK: - Row 4: 400 tasks that sleep 20 ms, at concurrency 50

func boundedConcurrencyBenchmarks() {
    let atOnce = BenchmarkMetric.custom("tasks running at once", polarity: .prefersLarger, useScalingFactor: false)
    let sleepers = Benchmark.Configuration(metrics: [.wallClock, .threads, atOnce], maxIterations: 10)

    Benchmark("4 bounded: 400 × usleep(20 ms), awaitAll(concurrency: 50)", configuration: sleepers) { benchmark in
        let counter = RunningCounter()
        blackHole(sleeperTasks(counting: counter).awaitAll(concurrency: 50))
        benchmark.measurement(atOnce, counter.peak)
    }

    Benchmark("4 bounded | baseline: TaskGroup width 50 of Task.sleep(20 ms)", configuration: sleepers) {
        benchmark async in
        let counter = RunningCounter()
        await taskGroupOfSleepers(counting: counter)
        benchmark.measurement(atOnce, counter.peak)
    }
}

// MARK: - Row 5: awaitFirst over a 10 ms and a 2 s task

func awaitFirstBenchmarks() {
    let race = Benchmark.Configuration(metrics: [.wallClock], warmupIterations: 1, maxIterations: 5)

    Benchmark("5 awaitFirst: [usleep 2 s, usleep 10 ms].awaitFirst()", configuration: race) { _ in
        precondition(slowAndFastTasks().awaitFirst() == 1)
    }

    Benchmark("5 awaitFirst | baseline: TaskGroup race of Task.sleep 2 s / 10 ms", configuration: race) { _ async in
        let first = await taskGroupRace()
        precondition(first == 1)
    }
}

// MARK: - Row 6: memory of one awaitAll over 1,000,000 trivial tasks

func memoryBenchmarks() {
    let memory = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, .mallocBytesCount, .memoryLeakedBytes, .peakMemoryResidentDelta],
        warmupIterations: 1,
        maxIterations: 5
    )
    let tasks = Box<[Task<Int>]>([])
    Benchmark(
        "6 memory: awaitAll(concurrency: 50) of 1M trivial tasks (input built in setup)",
        configuration: memory,
        closure: { _ in blackHole(tasks.value.awaitAll(concurrency: 50)) },
        setup: { tasks.value = trivialClosures(1_000_000).map { Task(action: $0) } },
        teardown: { tasks.value = [] }
    )
}
