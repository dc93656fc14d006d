import Taskig

/// Section 2: `awaitFirst()` races three tasks of different speeds; the first to finish wins
/// and the others are cancelled.
enum RaceDemo {
    static func run(console: Console) throws {
        console.header("2. A race: awaitFirst()")
        let mirrors = [("mirror A", 0.6), ("mirror B", 0.25), ("mirror C", 0.08)]
        console.line("   Three mirrors answer after 600, 250 and 80 ms; the first answer wins.")
        // `delay` holds no thread while it waits, and a composed task shares the cancellation
        // of the task it continues, so cancelling a loser stops its timer.
        let tasks = mirrors.map { name, seconds in ThrowableTask.delay(seconds).map { name } }
        let stopwatch = Stopwatch()
        let winner = try tasks.awaitFirst()
        console.line("   \(console.green(winner)) won after \(console.bold(stopwatch.seconds.millisecondsText)).")
        let losers = zip(mirrors, tasks).filter { mirror, _ in mirror.0 != winner }
        let verdicts = losers.map { mirror, task in "\(mirror.0) \(task.isCancelled ? "yes" : "no")" }
        console.line("   The losers were cancelled: \(verdicts.joined(separator: ", ")).")
    }
}
