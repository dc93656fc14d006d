// A command-line program that waits on its main thread, as scripts do. The tests in
// TaskigTests/MainThreadScriptTests.swift run it and read what it prints.
import Dispatch
import Foundation
import Taskig

let mainKey = DispatchSpecificKey<String>()
DispatchQueue.main.setSpecific(key: mainKey, value: "main")

func report(_ scenario: String, _ passed: Bool) {
    print("\(passed ? "OK" : "FAIL") \(scenario)")
}

let onMainQueue = Task<Bool>(executionQueue: .main) { DispatchQueue.getSpecific(key: mainKey) == "main" }
report("task on the main queue", onMainQueue.await())

let throughMain = Task<Int> { done in
    DispatchQueue.global().async { DispatchQueue.main.async { done(42) } }
}
report("completion through DispatchQueue.main.async", throughMain.await() == 42)

let throwingOnMain = ThrowableTask<String>(executionQueue: .main) { "main" }
report("throwable task on the main queue", (try? throwingOnMain.await()) == "main")

let timed = ThrowableTask<Int> { done in
    DispatchQueue.main.asyncAfter(deadline: .now() + 0.05) { done(.success(7)) }
}
report("timed wait completing through main", (try? timed.await(timeout: 5)) == 7)

// Holds its handler for an hour: a handler released uncalled would fail the run at once.
let neverEnds = ThrowableTask<Int> { done in
    DispatchQueue.global().asyncAfter(deadline: .now() + 3600) { done(.success(0)) }
}
let start = DispatchTime.now()
var timedOut = false
do { try neverEnds.await(timeout: 0.1) } catch TaskigError.timedOut { timedOut = true } catch {}
let waited = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
report("timeout on the main thread", timedOut && waited < 1)

let collection = (0..<5).map { i in Task<Int>(executionQueue: .main) { i } }.awaitAll()
report("awaitAll of main-queue tasks", collection == [0, 1, 2, 3, 4])

let mixed = (0..<5).map { i in
    Task<Int> { done in DispatchQueue.main.async { done(i * 2) } }
}.awaitAll(concurrency: 2)
report("awaitAll of tasks completing through main", mixed == [0, 2, 4, 6, 8])

// Work that is not the main queue's never runs on the main thread: it may use the main queue.
report("global work calling DispatchQueue.main.sync", Task { DispatchQueue.main.sync { 2 } }.await() == 2)

let waitsForMain = Task { () -> Int in
    let sent = DispatchSemaphore(value: 0)
    DispatchQueue.main.async { sent.signal() }
    sent.wait()
    return 1
}
report("global work waiting for a block it sent to the main queue", waitsForMain.await() == 1)

let syncing = (0..<4).map { i in ThrowableTask { DispatchQueue.main.sync { i } } }
report("awaitAll of work calling DispatchQueue.main.sync", (try? syncing.awaitAll()) == [0, 1, 2, 3])
report(
    "awaitAllResults of work calling DispatchQueue.main.sync",
    syncing.awaitAllResults().compactMap { try? $0.get() } == [0, 1, 2, 3])
report(
    "a composed task calling DispatchQueue.main.sync",
    (try? ThrowableTask { 1 }.map { v in DispatchQueue.main.sync { v + 1 } }.await()) == 2)
report(
    "completions of main-queue tasks and of work calling DispatchQueue.main.sync",
    ((0..<3).map { i in ThrowableTask(executionQueue: .main) { i } } + syncing).completions(concurrency: 3)
        .map { try? $0.result.get() }.sorted { ($0 ?? -1) < ($1 ?? -1) } == [0, 0, 1, 1, 2, 2, 3])
let mainProgress = Progress(totalUnitCount: 0)
report(
    "awaitAll with a progress of work calling DispatchQueue.main.sync",
    (try? syncing.awaitAll(progress: mainProgress)) == [0, 1, 2, 3] && mainProgress.completedUnitCount == 4)
// The main thread inside a serial queue's `sync`: that queue's tasks can only run here.
let serial = DispatchQueue(label: "main-thread-script.serial")
report(
    "awaitAll of a serial queue's tasks inside its sync on the main thread",
    serial.sync { (1...3).map { i in Task(executionQueue: serial) { i } }.awaitAll() } == [1, 2, 3])
report(
    "awaitAll of a serial queue's throwable tasks inside its sync on the main thread",
    serial.sync { (try? (1...3).map { i in ThrowableTask(executionQueue: serial) { i } }.awaitAll()) } == [1, 2, 3])

// A main-queue task awaited by global work that the main thread waits for is handed to the
// main thread, which then still services the main queue for the work it awaits in turn.
report(
    "a main-queue task awaited from global work, whose own work calls DispatchQueue.main.sync",
    Task { Task(executionQueue: .main) { Task { DispatchQueue.main.sync { 3 } }.await() }.await() }.await() == 3)

if CommandLine.arguments.contains("--dispatch-main") {
    // Under dispatchMain() the main queue's blocks run without the main run loop; a task on
    // the main queue awaited from one of them runs in place.
    DispatchQueue.main.async {
        let value = Task<Int>(executionQueue: .main) { 5 }.await()
        report("task on the main queue from a main-queue block under dispatchMain", value == 5)
        let offsets = (0..<3).map { i in ThrowableTask(executionQueue: .main) { i } }.completions().map(\.offset)
        report("completions of main-queue tasks from a main-queue block under dispatchMain", offsets == [0, 1, 2])
        // As a script's top-level code after its first `await`: the thread running this block
        // holds the main queue, and a main-queue step after a callback is handed to it.
        let later = ThrowableTask<String> { done in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { done(.success("later")) }
        }
        let step = try? later.map(on: .main) { $0.uppercased() }.await()
        report("a main-queue step after a callback, from a main-queue block under dispatchMain", step == "LATER")
        exit(0)
    }
    dispatchMain()
}
