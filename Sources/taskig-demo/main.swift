// taskig-demo: Taskig's main capabilities, each on a small workload, in a few seconds. Every
// wait below blocks the main thread, which Taskig keeps serviced meanwhile.
import Foundation
import Taskig

let options: Options
do {
    switch try Options.parse(Array(CommandLine.arguments.dropFirst())) {
    case .help:
        print(Options.help)
        exit(0)
    case .run(let parsed):
        options = parsed
    }
} catch {
    Console.error("taskig-demo: \(error.message)\n\n\(Options.synopsis)\n\nRun 'taskig-demo --help' for more.")
    exit(2)
}

let console = Console.standardOutput()
let stopwatch = Stopwatch()
console.line(
    console.bold("Taskig demo") + ": straight-line blocking waits, all on the main thread.")

let sections: [(name: String, run: () throws -> Void)] = [
    ("batch", { BatchDemo.run(options, console: console) }),
    ("race", { try RaceDemo.run(console: console) }),
    ("timeout", { try TimeoutDemo.run(console: console) }),
    ("cancellation", { try CancellationDemo.run(console: console) }),
    ("fetch", { try FetchDemo.run(options, console: console) }),
]
var failed: [String] = []
for section in sections {
    do {
        try section.run()
    } catch {
        console.line(console.red("   The \(section.name) section failed: \(error)"))
        failed.append(section.name)
    }
}

console.line()
if failed.isEmpty {
    console.line(String(format: "Done in %.1f s.", stopwatch.seconds))
} else {
    console.line(
        String(format: "Done in %.1f s, but ", stopwatch.seconds) + "\(failed.joined(separator: ", ")) failed.")
    exit(1)
}
