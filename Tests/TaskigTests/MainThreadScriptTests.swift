import Foundation
import Testing

/// Runs `taskig-main-thread-script`, a real command-line program that waits on its main
/// thread, and checks every scenario it reports.
@Suite struct MainThreadScriptTests {
    @Test func waitsOnTheMainThreadOfACommandLineProgramFinish() async throws {
        let output = try await runScript()
        for scenario in [
            "task on the main queue",
            "completion through DispatchQueue.main.async",
            "throwable task on the main queue",
            "timed wait completing through main",
            "timeout on the main thread",
            "awaitAll of main-queue tasks",
            "awaitAll of tasks completing through main",
            "global work calling DispatchQueue.main.sync",
            "global work waiting for a block it sent to the main queue",
            "awaitAll of work calling DispatchQueue.main.sync",
            "awaitAllResults of work calling DispatchQueue.main.sync",
            "a composed task calling DispatchQueue.main.sync",
            "completions of main-queue tasks and of work calling DispatchQueue.main.sync",
            "awaitAll with a progress of work calling DispatchQueue.main.sync",
            "awaitAll of a serial queue's tasks inside its sync on the main thread",
            "awaitAll of a serial queue's throwable tasks inside its sync on the main thread",
            "a main-queue task awaited from global work, whose own work calls DispatchQueue.main.sync",
        ] {
            #expect(output.contains("OK \(scenario)\n"), "missing: \(scenario)\n\(output)")
        }
        #expect(!output.contains("FAIL"), "\(output)")
    }

    @Test func aMainQueueBlockUnderDispatchMainRunsMainQueueTasksInPlace() async throws {
        let output = try await runScript(arguments: ["--dispatch-main"])
        #expect(output.contains("OK task on the main queue from a main-queue block under dispatchMain\n"), "\(output)")
        #expect(
            output.contains("OK completions of main-queue tasks from a main-queue block under dispatchMain\n"),
            "\(output)")
        #expect(
            output.contains("OK a main-queue step after a callback, from a main-queue block under dispatchMain\n"),
            "\(output)")
    }

    /// Runs the script with a watchdog: a hang is killed and fails the test.
    private func runScript(arguments: [String] = []) async throws -> String {
        let (output, exitedCleanly) = try await runPackageExecutable(
            "taskig-main-thread-script", arguments: arguments, timeout: 20 * timingSlack)
        #expect(exitedCleanly, "the script hung or crashed")
        return output
    }
}
