import BenchWorkloads
import ClientShapes
import Foundation
import Taskig

// Single workloads for profilers and for looking closer at one figure, run as
// `.build/release/taskig-bench child NAME ARGS…`, e.g.
//
//   valgrind --tool=callgrind .build/release/taskig-bench child profile-task-await 100000
//   .build/release/taskig-bench child allocations-per-await
//   .build/release/taskig-bench child nested-taskig-back-to-back 5000 10
//   .build/release/taskig-bench child nested-dispatch 5000 70
//   valgrind --tool=callgrind .build/release/taskig-bench child map-chain 100000
//   .build/release/taskig-bench child future-fan-out 10000 5
//   .build/release/taskig-bench child loopback-gets 5

/// Runs the diagnostic `name`; returns `false` when there is none of that name.
func runDiagnostic(_ name: String, _ arguments: [String]) -> Bool {
    switch name {
    case "profile-task-await":
        // Seconds per `Task { 1 }.await()` over COUNT awaits.
        print(taskigTaskAwait(count: Int(arguments[0])!))
    case "profile-throwable-await":
        print(taskigThrowableTaskAwait(count: Int(arguments[0])!))
    case "allocations-per-await":
        guard HeapCounter.isAvailable else {
            print("left out: \(HeapCounter.unavailableReason)")
            break
        }
        _ = Task { 1 }.await()
        _ = try! ThrowableTask { 1 }.await()
        let plain = HeapCounter.measure { for _ in 0..<1000 { _ = Task { 1 }.await() } }
        let throwing = HeapCounter.measure { for _ in 0..<1000 { _ = try! ThrowableTask { 1 }.await() } }
        print("Task { 1 }.await(): \(Double(plain.allocations) / 1000) allocations")
        print("ThrowableTask { 1 }.await(): \(Double(throwing.allocations) / 1000) allocations")
    case "profile-await-all":
        // Median seconds of one awaitAll over COUNT trivial tasks, of REPETITIONS runs, at
        // CONCURRENCY (default 50).
        let tasks = trivialClosures(Int(arguments[0])!).map { Task(action: $0) }
        let concurrency = arguments.count > 2 ? Int(arguments[2])! : 50
        print(medianOf(Int(arguments[1])!) { awaitAllPerTask(tasks, concurrency: concurrency) } * Double(tasks.count))
    case "await-all-series":
        // Nanoseconds per task of RUNS consecutive awaitAlls over COUNT trivial tasks.
        let tasks = trivialClosures(Int(arguments[0])!).map { Task(action: $0) }
        print(
            (0..<Int(arguments[1])!).map { _ in String(format: "%.1f", awaitAllPerTask(tasks) * 1e9) }.joined(
                separator: " "))
    case "concurrent-perform-series":
        let closures = trivialClosures(Int(arguments[0])!)
        print(
            (0..<Int(arguments[1])!).map { _ in String(format: "%.1f", concurrentPerformPerItem(closures) * 1e9) }
                .joined(separator: " "))
    case "sleepers-threads":
        // Row 4 RUNS times in one process, with PAUSE microseconds between runs.
        for _ in 0..<Int(arguments[0])! {
            let run = taskigSleepers()
            print("wall \(run.wall) s, \(run.peak) running at once, peak \(run.threads) threads")
            if arguments.count > 1 { usleep(UInt32(arguments[1])!) }
        }
    case "map-chain":
        // Build, run and release time per link of one chain of LINKS maps (row 7).
        let (build, run, release) = taskigMapChain(links: Int(arguments[0])!)
        print(
            "per link: build \(formatDuration(build)), run \(formatDuration(run)), release \(formatDuration(release))")
    case "dispatch-hops":
        // Seconds per hop of STEPS GCD hops between two serial queues, and on global() (row 7).
        let steps = Int(arguments[0])!
        print("serial queues alternating: \(formatDuration(dispatchSerialHops(steps: steps))) per hop")
        print("global(): \(formatDuration(dispatchGlobalHops(steps: steps))) per hop")
    case "future-fan-out":
        // Per continuation, COUNT continuations on one promise (row 8), RUNS times.
        let count = Int(arguments[0])!
        for _ in 0..<(arguments.count > 1 ? Int(arguments[1])! : 1) {
            print(
                "future.async \(formatDuration(taskigFutureAsyncFanOut(count: count))), "
                    + "map.start \(formatDuration(taskigFutureMapStartFanOut(count: count).perContinuation)), "
                    + "Swift Task + continuation \(formatDuration(swiftTaskFanOut(count: count))), "
                    + "Swift Task + actor \(formatDuration(swiftActorFanOut(count: count)))")
        }
    case "nested-taskig-ramp":
        // Row 3's workload once, with the thread count sampled every ~50 µs: when the process
        // first had 10, 20, 30, 40 and 50 threads more than before, and the wall time. A
        // second argument `thread` calls awaitAll from a new thread instead of the main thread.
        let tasks = (0..<Int(arguments[0])!).map { _ in Task { Task { usleep(100) }.await() } }
        let before = currentThreadCount()
        let firstSeen = Box([Double](repeating: -1, count: 5))
        let stop = Box(false)
        let start = nanoseconds()
        let sampler = Thread {
            while !stop.value {
                let extra = currentThreadCount() - before
                for step in 0..<5 where firstSeen.value[step] < 0 && extra >= (step + 1) * 10 {
                    firstSeen.value[step] = Double(nanoseconds() - start) / 1e6
                }
                usleep(50)
            }
        }
        sampler.start()
        let wall =
            arguments.count > 1 && arguments[1] == "thread"
            ? onFreshThread { seconds { _ = tasks.awaitAll(concurrency: nestedWidth) } }
            : seconds { _ = tasks.awaitAll(concurrency: nestedWidth) }
        stop.value = true
        print(
            String(format: "wall %.1f ms; +10/+20/+30/+40/+50 threads at ", wall * 1e3)
                + firstSeen.value.map { $0 < 0 ? "never" : String(format: "%.2f ms", $0) }.joined(separator: " / "))
    case "profile-future-async":
        // Per continuation: COUNT × `future.async`, resolved, RUNS times (for callgrind).
        for _ in 0..<Int(arguments[1])! { print(taskigFutureAsyncFanOut(count: Int(arguments[0])!)) }
    case "profile-future-map-start":
        for _ in 0..<Int(arguments[1])! { print(taskigFutureMapStartFanOut(count: Int(arguments[0])!)) }
    case "profile-swift-fan-out":
        for _ in 0..<Int(arguments[1])! { print(swiftTaskFanOut(count: Int(arguments[0])!)) }
    case "shape":
        // One of issue 12's client shapes, COUNT items, REPETITIONS times; prints ns per item.
        // `count-instructions.sh` runs these under callgrind and dhat.
        let count = Int(arguments[1])!
        let shape: () -> Double
        switch arguments[0] {
        case "await-all-throwable":
            let closures = capturingClosures(count); shape = { throwableTasksAwaitAll(closures) }
        case "concurrent-perform":
            let closures = capturingClosures(count); shape = { concurrentPerformIntoBuffer(closures) }
        // Issue 21's row 10a: making and dropping tasks in the shape users write, and the same
        // tasks awaited; the difference is what awaitAll adds.
        case "make-throwable-tasks": shape = { madeThrowableTasksDropped(count) }
        case "await-all-made-tasks": shape = { madeThrowableTasksAwaitAll(count) }
        case "map-chain": shape = { mapChainBuiltAwaitedAndFreed(links: count) }
        // Issue 20's recursive loop and its baseline, the same chain built by reassignment.
        case "recursive-countdown": shape = { recursiveCountdownAwaited(levels: count) }
        case "reassigned-countdown": shape = { reassignedCountdownAwaited(levels: count) }
        case "tail-countdown": shape = { tailCountdownAwaited(levels: count) }
        case "global-hops": shape = { globalQueueHops(count) }
        // Issue 13's shapes (row 12).
        case "await-all-results":
            let closures = capturingClosures(count); shape = { throwableTasksAwaitAllResults(closures) }
        case "completions":
            let closures = capturingClosures(count); shape = { throwableTasksCompletions(closures) }
        case "await-all-progress":
            let closures = capturingClosures(count); shape = { throwableTasksAwaitAllCountingProgress(closures) }
        case "future-fan-out": shape = { futureMapStartFanOut(count) }
        case "future-fan-out-main": shape = { futureMapStartFanOutOnThisThread(count) }
        case "swift-fan-out": shape = { swiftTasksAwaitingOneValue(count) }
        // The other rows' shapes that are not mostly sleeping, waiting or I/O.
        case "task-await": shape = { taskigTaskAwait(count: count) }
        case "throwable-task-await": shape = { taskigThrowableTaskAwait(count: count) }
        // Callback tasks, whose handler is not a plain call (issue 27's dropped-callback check).
        case "callback-task-await": shape = { taskigCallbackTaskAwait(count: count) }
        case "callback-throwable-task-await": shape = { taskigCallbackThrowableTaskAwait(count: count) }
        case "global-async-semaphore": shape = { dispatchAsyncSemaphoreAwait(count: count) }
        case "swift-task-value": shape = { swiftTaskValue(count: count) }
        case "await-all-prebuilt-tasks":
            let tasks = trivialClosures(count).map { Task(action: $0) }; shape = { awaitAllPerTask(tasks) }
        case "future-async-fan-out": shape = { taskigFutureAsyncFanOut(count: count) }
        // Issue 19's shapes (row 13a), each on a plain thread made for the call, as in the row.
        case "stored-throwable-awaits": shape = { onFreshThread { try! storedThrowableTaskAwaits(count) } }
        case "fresh-throwable-awaits": shape = { onFreshThread { try! freshThrowableTaskAwaits(count) } }
        default: fatalError("unknown shape \(arguments[0])")
        }
        for _ in 0..<(arguments.count > 2 ? Int(arguments[2])! : 1) {
            print(String(format: "%.1f ns", shape() * 1e9))
        }
        // What a worker thread still frees after the caller returned is part of the cost; the
        // process waits for it before it exits, so that every count includes it.
        usleep(500_000)
    case "loopback-gets":
        // RUNS runs of row 9: 1,000 GETs through TaskigURL, URLSession async, and URLSession's
        // completion-handler API with a semaphore of 16 (the call TaskigURL makes), and more.
        // A second argument `close` makes the server close every connection after one answer.
        let server = try! BenchHTTPServer(keepAlive: arguments.count < 2 || arguments[1] != "close")
        let urls = (0..<httpRequestCount).map { server.url("/item?id=\($0)") }
        func line(_ name: String, _ run: () -> HTTPRunCost) {
            let before = server.counts.connections
            _ = server.takePeakOpenConnections()
            let cost = run()
            print(
                "  \(name): \(formatDuration(cost.wall)), CPU \(formatDuration(cost.cpu / Double(urls.count))) per GET, "
                    + "\(cost.contextSwitches / urls.count) switches per GET, \(server.counts.connections - before) connections, "
                    + "at most \(server.takePeakOpenConnections()) open")
        }
        for run in 0..<Int(arguments[0])! {
            print("run \(run + 1)")
            line("TaskigURL awaitAll(concurrency: 16)") { taskigURLGets(urls) }
            line("URLSession async data(from:), TaskGroup of 16") { urlSessionAsyncGets(urls) }
            line("URLSession async data(from:), TaskGroup of 16, on a session TaskigURL has seen") {
                urlSessionAsyncGets(urls, seenByTaskig: true)
            }
            line("URLSession dataTask + completion handler, semaphore of 16") { urlSessionCompletionHandlerGets(urls) }
            line("TaskigURL awaitAll(concurrency: 16), called from a non-main thread") {
                onFreshThread { taskigURLGets(urls) }
            }
            line("bare dataTask task (no TaskigURL), awaitAll(concurrency: 16)") { bareTaskGets(urls) }
        }
        server.stop()
    default:
        return false
    }
    return true
}
