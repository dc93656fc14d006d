import Foundation
import Taskig

/// Section 3: a slow task with a time limit, first as a limit on one wait
/// (`await(timeout:)`), then as a limit built into the task (`.timeout(_:)`) with a fallback.
enum TimeoutDemo {
    static func run(console: Console) throws {
        console.header("3. A timeout: await(timeout:) and .timeout(_:)")
        console.line("   A report takes 2 s and never checks for cancellation; we allow 250 ms.")

        let report = slowReport()
        var stopwatch = Stopwatch()
        do {
            let text = try report.await(timeout: 0.25)
            throw DemoFailure(description: "await(timeout:) returned \"\(text)\" instead of timing out")
        } catch TaskigError.timedOut {
            let waited = stopwatch.seconds.millisecondsText
            console.line(
                "   await(timeout: 0.25) threw \(console.yellow("TaskigError.timedOut")) after \(console.bold(waited))."
            )
            console.line("   It gave up on that run, not on the report: report.isCancelled is \(report.isCancelled).")
        }

        stopwatch = Stopwatch()
        let text = try slowReport()
            .timeout(0.25)
            .recover { error in
                guard case TaskigError.timedOut = error else { throw error }
                return "yesterday's report"
            }
            .await()
        console.line(
            "   .timeout(0.25).recover { ... } gave \(console.green("\"\(text)\"")) after"
                + " \(console.bold(stopwatch.seconds.millisecondsText)).")
    }

    /// A report that takes two seconds and never looks at its cancellation, like a blocking
    /// call into code you do not control: the waiter is released on time all the same.
    private static func slowReport() -> ThrowableTask<String> {
        ThrowableTask {
            Thread.sleep(forTimeInterval: 2)
            return "today's report"
        }
    }
}
