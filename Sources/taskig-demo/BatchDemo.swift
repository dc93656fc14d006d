import Foundation
import Taskig

/// Section 1: a batch of file counts through `awaitAllResults(concurrency:)`, first one at a
/// time and then N at a time, with a live progress line.
enum BatchDemo {
    /// One pass over the files at one concurrency.
    private struct Pass {
        let counts: [Result<FileCount, Error>]
        let seconds: Double
        let peakRunning: Int
        let timerTicks: Int
    }

    static func run(_ options: Options, console: Console) {
        console.header("1. A bounded batch: awaitAllResults(concurrency:)")
        let directory = options.directory.standardizedFileURL
        let files = FileCount.files(under: directory)
        let place = options.isBuiltInDirectory ? "this package's Sources" : directory.path
        guard !files.isEmpty else {
            console.line("   There are no files to count under \(place).")
            return
        }
        let latency = options.effectiveLatency
        console.line(
            "   Counting the words of \(files.count.counted("file")) under \(place)"
                + (latency > 0 ? ";" : "."))
        if latency > 0 {
            console.line(
                console.dim("   each file waits \(latency.millisecondsText) first, standing in for slow storage."))
        }

        var passes: [Pass] = []
        for concurrency in Set([1, options.concurrency]).sorted() {
            let pass = count(files, concurrency: concurrency, latency: latency, console: console)
            passes.append(pass)
            var report = "   \(concurrency) at a time".rightPadded(to: 16)
            report += console.bold(pass.seconds.millisecondsText.leftPadded(to: 8))
            report += "   at most \(pass.peakRunning) running at once"
            if let first = passes.first, pass.seconds > 0, concurrency > 1 {
                report += String(format: ", %.1fx as fast", first.seconds / pass.seconds)
            }
            console.line(report)
        }
        let ticks = passes.reduce(0) { $0 + $1.timerTicks }
        console.line("   The main thread was blocked in awaitAllResults all along, and yet")
        console.line("   a timer on the main queue fired \(ticks.counted("time")) meanwhile.")
        summarize(passes.last!.counts, under: directory, console: console)
    }

    /// Counts every file, at most `concurrency` at once, drawing the progress line meanwhile.
    private static func count(_ files: [URL], concurrency: Int, latency: Double, console: Console) -> Pass {
        let progress = BatchProgress()
        let tasks = files.map { file in
            // Straight-line code inside a task: each `await()` here blocks a Taskig lane
            // thread, never the main thread, and the delay holds no thread at all.
            ThrowableTask {
                progress.begin()
                defer { progress.end() }
                try ThrowableTask.delay(latency).await()
                return try FileCount.task(for: file).await()
            }
        }
        let line = ProgressLine(
            label: "\(concurrency) at a time", total: files.count, progress: progress, console: console)
        let stopwatch = Stopwatch()
        let counts = tasks.awaitAllResults(concurrency: concurrency)
        let seconds = stopwatch.seconds
        let ticks = line.finish()
        return Pass(counts: counts, seconds: seconds, peakRunning: progress.snapshot.peakRunning, timerTicks: ticks)
    }

    private static func summarize(_ results: [Result<FileCount, Error>], under directory: URL, console: Console) {
        let counted = results.compactMap { try? $0.get() }
        let unreadable = results.count - counted.count
        let lines = counted.reduce(0) { $0 + $1.lines }
        let words = counted.reduce(0) { $0 + $1.words }
        let bytes = counted.reduce(0) { $0 + $1.bytes }
        console.line(
            "   \(counted.count.counted("file")): \(lines.counted("line")), \(words.counted("word")),"
                + " \(bytes.byteCountText)" + (unreadable > 0 ? " (\(unreadable) could not be read)" : "")
                + ". Most words:")
        let prefix = directory.path.hasSuffix("/") ? directory.path : directory.path + "/"
        for file in counted.sorted(by: { $0.words > $1.words }).prefix(3) {
            let name = file.path.hasPrefix(prefix) ? String(file.path.dropFirst(prefix.count)) : file.path
            console.line("   \(file.words.groupedText.leftPadded(to: 9))  \(name)")
        }
    }
}
