import Synchronization
import Taskig

/// Section 2: `awaitFirst()` races three tasks of different speeds; the first to finish wins,
/// the runs of the others are cancelled, and the tasks stay usable.
enum RaceDemo {
    static func run(console: Console) throws {
        console.header("2. A race: awaitFirst()")
        let mirrors = [("mirror A", 0.6), ("mirror B", 0.25), ("mirror C", 0.08)]
        console.line("   Three mirrors answer after 600, 250 and 80 ms; the first answer wins.")
        // `delay` holds no thread while it waits; a cancelled run reaches the steps after it
        // as a failure, which `mapError` sees.
        let cancelledRuns = Atomic(0)
        let tasks = mirrors.map { name, seconds in
            ThrowableTask.delay(seconds).map { name }.mapError { error in
                if error is CancellableTaskError { cancelledRuns.add(1, ordering: .relaxed) }
                return error
            }
        }
        let stopwatch = Stopwatch()
        let winner = try tasks.awaitFirst()
        console.line("   \(console.green(winner)) won after \(console.bold(stopwatch.seconds.millisecondsText)).")
        console.line("   The losers' runs were cancelled: \(cancelledRuns.load(ordering: .relaxed)) of 2.")
        let again = try [tasks[0], tasks[1]].awaitFirst()
        console.line("   The tasks stay usable: raced again without mirror C, \(console.green(again)) wins.")
    }
}
