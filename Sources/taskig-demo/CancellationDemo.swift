import Dispatch
import Taskig

/// Section 4: a main-queue timer cancels a running task while the main thread waits for it;
/// the waiter returns at once, and the task's body hears of it and stops.
enum CancellationDemo {
    static func run(console: Console) throws {
        console.header("4. Cancellation: cancel()")
        let steps = 30
        console.line("   A job of \(steps) steps of 100 ms; a main-queue timer cancels it after 250 ms.")

        // The body reports how far it got, so the demo can show it stopped instead of running on.
        let stoppedAfter = Promise<Int>()
        let job = ThrowableTask { () async throws -> Int in
            // Swift concurrency code: the `_Concurrency.Task` running it is cancelled with the
            // job, which makes `sleep` throw.
            for step in 0..<steps {
                do {
                    try await _Concurrency.Task.sleep(for: .milliseconds(100))
                } catch {
                    stoppedAfter.resolve(step)
                    // Taskig's error rather than Swift's `CancellationError`: the job's own
                    // outcome and its waiter's release on cancellation race to complete the
                    // run, and both should say the same thing.
                    throw CancellableTaskError.taskWasCancelled
                }
            }
            stoppedAfter.resolve(steps)
            return steps
        }
        // The main thread is about to block in `awaitResult()`; this timer still fires,
        // because the wait keeps the main queue serviced.
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.25) { job.cancel() }

        let stopwatch = Stopwatch()
        let outcome = job.awaitResult()
        let waited = stopwatch.seconds.millisecondsText
        guard case .failure(CancellableTaskError.taskWasCancelled) = outcome else {
            throw DemoFailure(description: "the cancelled job ended with \(outcome)")
        }
        console.line(
            "   The waiter returned after \(console.bold(waited)) with"
                + " \(console.yellow("CancellableTaskError.taskWasCancelled")).")
        let done = try stoppedAfter.future.await(timeout: 1)
        console.line("   The job saw the cancellation and stopped, with \(done) of its \(steps) steps done.")
    }
}
