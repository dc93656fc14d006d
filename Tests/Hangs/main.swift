// A command-line program that builds one wait that cannot end, as a program might by mistake,
// and lets Taskig report it: with TASKIG_STALL_REPORT set, the stall monitor prints the wait
// report to standard error. The hang runs on the main thread, as in a script; the program
// exits after SECONDS (default 1), once it has had time to be reported.
// TaskigTests/HangReportTests.swift runs it and checks what it printed; the Troubleshooting
// article shows what it prints.
//
//   TASKIG_STALL_REPORT=0.2 taskig-hangs SCENARIO [SECONDS]
import Dispatch
import Foundation
import Taskig

let scenario = CommandLine.arguments.dropFirst().first ?? ""
guard let hang = Hangs.all[scenario] else {
    print("unknown scenario '\(scenario)'; scenarios: \(Hangs.all.keys.sorted().joined(separator: ", "))")
    exit(2)
}
let seconds = Double(CommandLine.arguments.dropFirst(2).first ?? "") ?? 1
Thread.detachNewThread {
    Thread.sleep(forTimeInterval: seconds)
    print("exiting")
    exit(0)
}
hang()
Thread.sleep(forTimeInterval: seconds + 1)
