import Foundation
import Synchronization
import Taskig

/// Section 1: a batch of file counts through `awaitAllResults(concurrency:progress:)`, first
/// one at a time and then N at a time, with a live progress line drawn from the `Progress`
/// the wait counts into; then the same files through `completions(concurrency:)`, left after
/// the first three to finish.
enum BatchDemo {
    /// One pass over the files at one concurrency.
    private struct Pass {
        let counts: [Result<FileCount, Error>]
        let seconds: Double
        let timerTicks: Int
    }

    static func run(_ options: Options, console: Console) {
        console.header("1. A bounded batch: awaitAllResults(concurrency:progress:)")
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
            if pass.seconds > 0 { report += "   \(Int((Double(files.count) / pass.seconds).rounded())) files/s" }
            if let first = passes.first, pass.seconds > 0, concurrency > 1 {
                report += String(format: ", %.1fx as fast", first.seconds / pass.seconds)
            }
            console.line(report)
        }
        let ticks = passes.reduce(0) { $0 + $1.timerTicks }
        console.line("   The main thread was blocked in awaitAllResults all along, and yet")
        console.line("   a timer on the main queue fired \(ticks.counted("time")) meanwhile.")
        summarize(passes.last!.counts, under: directory, console: console)
        firstToFinish(files, under: directory, concurrency: options.concurrency, latency: latency, console: console)
    }

    /// Counts every file, at most `concurrency` at once, drawing the progress line meanwhile.
    private static func count(_ files: [URL], concurrency: Int, latency: Double, console: Console) -> Pass {
        let progress = Progress(totalUnitCount: 0)
        let line = ProgressLine(label: "\(concurrency) at a time", progress: progress, console: console)
        let stopwatch = Stopwatch()
        let counts = countingTasks(files, latency: latency).awaitAllResults(
            concurrency: concurrency, progress: progress)
        let seconds = stopwatch.seconds
        let ticks = line.finish()
        return Pass(counts: counts, seconds: seconds, timerTicks: ticks)
    }

    /// One task per file: note the start, wait `latency`, then count the file.
    private static func countingTasks(
        _ files: [URL], latency: Double, onStart: @escaping @Sendable () -> Void = {}
    ) -> [ThrowableTask<FileCount>] {
        files.map { file in
            // Straight-line code inside a task: each `await()` here blocks a Taskig lane
            // thread, never the main thread, and the delay holds no thread at all.
            ThrowableTask {
                onStart()
                try ThrowableTask.delay(latency).await()
                return try FileCount.task(for: file).await()
            }
        }
    }

    /// The same files through `completions`, each count shown as it settles; the loop stops
    /// after three, which cancels the runs still going and starts no more.
    private static func firstToFinish(
        _ files: [URL], under directory: URL, concurrency: Int, latency: Double, console: Console
    ) {
        console.line("   As they finish, with completions(concurrency: \(concurrency)), leaving after three:")
        let started = Started()
        let tasks = countingTasks(files, latency: latency) { started.count.add(1, ordering: .relaxed) }
        var shown = 0
        for (offset, result) in tasks.completions(concurrency: concurrency) {
            let words = (try? result.get()).map { $0.words.counted("word") } ?? "could not be read"
            console.line(
                "   \(offset.groupedText.leftPadded(to: 9))  \(name(of: files[offset], under: directory)): \(words)")
            shown += 1
            if shown == 3 { break }
        }
        console.line(
            "   Leaving the loop cancelled the runs still going: \(started.count.load(ordering: .relaxed))"
                + " of \(files.count.counted("file")) were ever started.")
    }

    /// How many of `firstToFinish`'s tasks started.
    private final class Started: Sendable {
        let count = Atomic(0)
    }

    /// `file`'s path below `directory`.
    private static func name(of file: URL, under directory: URL) -> String {
        let prefix = directory.path.hasSuffix("/") ? directory.path : directory.path + "/"
        return file.path.hasPrefix(prefix) ? String(file.path.dropFirst(prefix.count)) : file.path
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
        for file in counted.sorted(by: { $0.words > $1.words }).prefix(3) {
            let fileName = name(of: URL(fileURLWithPath: file.path), under: directory)
            console.line("   \(file.words.groupedText.leftPadded(to: 9))  \(fileName)")
        }
    }
}
