import ClientShapes
import Foundation
import Taskig

// taskig-bench: measures every row of Taskig's benchmark goals next to its baseline, in one
// run, and prints the goal table in markdown on standard output (progress goes to standard
// error). See ../../README.md.
//
//   swift run -c release taskig-bench               every row
//   swift run -c release taskig-bench --rows 1,3    some rows (1–16)
//   swift run -c release taskig-bench --quick       fewer repetitions
//   swift run -c release taskig-bench --gcd-timeout 60   how long raw GCD may take in row 3
//   .build/release/taskig-bench child NAME …        one workload alone (Diagnostics.swift)

var arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "child" {
    let name = arguments.count > 1 ? arguments[1] : ""
    let rest = Array(arguments.dropFirst(2))
    switch name {
    case "nested-taskig": childNestedTaskig(outer: Int(rest[0])!)
    case "nested-taskig-back-to-back": childNestedTaskigBackToBack(outer: Int(rest[0])!, runs: Int(rest[1])!)
    case "nested-taskgroup": childNestedTaskGroup(outer: Int(rest[0])!, suspending: rest[1] == "sleep")
    case "nested-dispatch": childNestedDispatch(outer: Int(rest[0])!, timeout: Double(rest[1])!)
    case "await-first": childAwaitFirst()
    case "first-race": childFirstRace(sleepers: Int(rest[0])!)
    case "memory": childMemory(count: Int(rest[0])!, concurrency: Int(rest[1])!)
    case "memory-throwable": childThrowableMemory(count: Int(rest[0])!)
    case "timeout-storm-taskig": childTimeoutStormTaskig()
    case "timeout-storm-dispatch": childTimeoutStormDispatch()
    case "start-storm-taskig": childStartStormTaskig()
    case "start-storm-dispatch": childStartStormDispatch()
    case "nested-callers-taskig": childNestedCallersTaskig()
    case "nested-callers-dispatch": childNestedCallersDispatch()
    case "heartbeat": childHeartbeat()
    // Row 13 (issue 19). The first runs its loop on this main thread before anything else.
    case "main-thread-task-awaits": childMainThreadTaskAwaits(count: Int(rest[0])!)
    case "timer-callback-tasks": childTimerCallbackTasks(count: Int(rest[0])!)
    case "timer-callbacks-dispatch": childTimerCallbacksDispatch(count: Int(rest[0])!)
    case "task-callback-tasks":
        childTaskCallbackTasks(count: Int(rest[0])!, giveUpAfter: rest.count > 1 ? Double(rest[1])! : 10)
    // Row 14 (issue 20).
    case "loop-memory": childLoopMemory(shape: rest[0], levels: Int(rest[1])!)
    // Rows 15 and 16 (issue 21): one side of a batch, in a process of its own.
    case "cpu-batch":
        childCPUBatch(side: BatchSide(rawValue: rest[0])!, work: BatchWork(argument: rest[1]), count: Int(rest[2])!)
    case "hash-files": childHashFiles(side: BatchSide(rawValue: rest[0])!, directory: rest[1])
    default:
        guard runDiagnostic(name, rest) else { fatalError("unknown child \(name)") }
    }
    exit(0)
}

var rows: Set<Int> = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
var quick = false
var gcdTimeout = 15.0
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--rows":
        rows = Set(arguments.removeFirst().split(separator: ",").compactMap { Int($0) })
    case "--quick":
        quick = true
    case "--gcd-timeout":
        gcdTimeout = Double(arguments.removeFirst())!
    case "-h", "--help":
        print("usage: taskig-bench [--rows 1,2,…] [--quick] [--gcd-timeout SECONDS]")
        exit(0)
    default:
        fatalError("unknown argument \(argument); try --help")
    }
}

let repetitions = quick ? 3 : 7
let processRepetitions = quick ? 3 : 5

func machineDescription() -> String {
    let cpu =
        (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("model name") }
        .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
    let load =
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
        .split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    return "\(ProcessInfo.processInfo.activeProcessorCount) cores (\(cpu)), load average at start \(load)"
}

let machine = machineDescription()
progress("taskig-bench on \(machine)")
let table = Table()
let started = Date()
if rows.contains(1) { runSingleAwaitRow(into: table, repetitions: repetitions) }
if rows.contains(2) { runAwaitAllThroughputRow(into: table, repetitions: repetitions) }
if rows.contains(3) { runNestedWaitsRow(into: table, repetitions: processRepetitions, dispatchTimeout: gcdTimeout) }
if rows.contains(4) { runBoundedConcurrencyRow(into: table, repetitions: repetitions) }
if rows.contains(5) {
    runAwaitFirstRow(into: table, repetitions: processRepetitions)
    runRaceStartsEveryRunnerRow(into: table, repetitions: repetitions)
}
if rows.contains(6) { runMemoryRow(into: table, repetitions: quick ? 1 : 3) }
if rows.contains(7) { runMapChainRow(into: table, repetitions: repetitions) }
if rows.contains(8) { runFutureFanOutRow(into: table, repetitions: repetitions) }
if rows.contains(9) { runLoopbackHTTPRow(into: table, repetitions: quick ? 3 : 5) }
if rows.contains(10) {
    runWhatUsersPayRow(into: table, repetitions: repetitions)
    runAwaitAllOwnCostRow(into: table, repetitions: repetitions)
}
if rows.contains(11) { runThreadBoundRow(into: table, repetitions: quick ? 1 : 3) }
if rows.contains(12) { runLongBatchesRow(into: table, repetitions: repetitions) }
if rows.contains(13) {
    runWhereWaitsRunRow(into: table, repetitions: repetitions, processRepetitions: processRepetitions)
}
if rows.contains(14) { runLoopsRow(into: table, repetitions: repetitions) }
if rows.contains(15) { runCPUBoundBatchesRow(into: table, repetitions: repetitions) }
if rows.contains(16) { runFileHashingRow(into: table, repetitions: repetitions) }

print(
    "Machine: \(machine). Medians of \(repetitions) in-process repetitions or \(processRepetitions) fresh processes per figure (rows 15 and 16: \(repetitions) pairs of processes); run took \(Int(Date().timeIntervalSince(started))) s.\n"
)
print(table.markdown)
