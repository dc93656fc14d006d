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
            "awaitAll of a serial queue's tasks inside its sync on the main thread",
            "awaitAll of a serial queue's throwable tasks inside its sync on the main thread",
        ] {
            #expect(output.contains("OK \(scenario)\n"), "missing: \(scenario)\n\(output)")
        }
        #expect(!output.contains("FAIL"), "\(output)")
    }

    @Test func aMainQueueBlockUnderDispatchMainRunsMainQueueTasksInPlace() async throws {
        let output = try await runScript(arguments: ["--dispatch-main"])
        #expect(output.contains("OK task on the main queue from a main-queue block under dispatchMain\n"), "\(output)")
    }

    /// Runs the script with a watchdog: a hang is killed and fails the test.
    private func runScript(arguments: [String] = []) async throws -> String {
        let script: URL = try #require(Self.scriptURL(), "taskig-main-thread-script was not built")
        let (output, exitedCleanly) = try await offTheCooperativePool { () throws -> (String, Bool) in
            let process = Process()
            process.executableURL = script
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let watchdog = DispatchWorkItem { process.terminate() }
            DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            watchdog.cancel()
            let exitedCleanly = process.terminationReason == .exit && process.terminationStatus == 0
            return (String(decoding: data, as: UTF8.self), exitedCleanly)
        }
        #expect(exitedCleanly, "the script hung or crashed")
        return output
    }

    /// The script is built next to the test bundle.
    private static func scriptURL() -> URL? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("taskig-main-thread-script")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}
