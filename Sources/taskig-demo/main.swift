// taskig-demo: count the words of many files, a bounded number at a time, and wait for
// all of them on the main thread.
import Dispatch
import Foundation
import Taskig

guard let options = Options.parse(Array(CommandLine.arguments.dropFirst())) else {
    print(Options.usage)
    exit(0)
}

let files = FileCount.files(under: options.directory)
print("Counting \(files.count) files under \(options.directory.path)")
guard !files.isEmpty else { exit(0) }

/// Counts every file at `concurrency` at once; returns the counts and the seconds it took.
func countAll(concurrency: Int) -> (counts: [Result<FileCount, Error>], seconds: Double) {
    let progress = ProgressLine(total: files.count, label: "concurrency \(concurrency)")
    let counter = progress.counter
    let tasks = files.map { file in
        ThrowableTask {
            defer { counter.advance() }
            return try FileCount.task(for: file).await()
        }
    }
    let start = DispatchTime.now()
    let counts = tasks.awaitAllResults(concurrency: concurrency)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    progress.finish()
    return (counts, seconds)
}

let sequential = countAll(concurrency: 1)
let concurrent = countAll(concurrency: options.concurrency)

let counted = concurrent.counts.compactMap { try? $0.get() }
let unreadable = concurrent.counts.count - counted.count
let lines = counted.reduce(0) { $0 + $1.lines }
let words = counted.reduce(0) { $0 + $1.words }
let bytes = counted.reduce(0) { $0 + $1.bytes }

print(
    "\(counted.count) files, \(lines) lines, \(words) words, \(bytes) bytes"
        + (unreadable > 0 ? " (\(unreadable) unreadable)" : ""))
print("Most words:")
for file in counted.sorted(by: { $0.words > $1.words }).prefix(5) {
    let name =
        file.path.hasPrefix(options.directory.path + "/")
        ? String(file.path.dropFirst(options.directory.path.count + 1)) : file.path
    print("  \(String(file.words).leftPadded(to: 7))  \(name)")
}
print(
    String(
        format: "one at a time: %.1f ms; %d at a time: %.1f ms", sequential.seconds * 1000,
        options.concurrency, concurrent.seconds * 1000))
