import Foundation
import Testing

/// Runs the `taskig-demo` executable the way a newcomer would, with its output piped, and
/// checks that each section reports what it shows.
@Suite struct DemoTests {
    /// What one run of the demo printed, and how it ended.
    struct Run {
        let status: Int32
        let output: String
        let errors: String
    }

    @Test func theDefaultRunShowsEachCapability() async throws {
        let run = try await runDemo()
        #expect(run.status == 0, "\(run.errors)\n\(run.output)")
        #expect(!run.output.contains("\u{1B}"), "piped output must carry no escape codes")
        #expect(!run.output.contains("\r"), "piped output must not redraw lines")
        #expect(run.errors.isEmpty, "\(run.errors)")
        for line in [
            // 1. the bounded batch, and the main queue serviced while the main thread waits
            "1. A bounded batch: awaitAllResults(concurrency:progress:)",
            "Counting the words of",
            "1 at a time",
            "4 at a time",
            "x as fast",
            "Most words:",
            "As they finish, with completions(concurrency: 4), leaving after three:",
            "Leaving the loop cancelled the runs still going:",
            // 2. the race
            "2. A race: awaitFirst()",
            "mirror C won after",
            "The losers' runs were cancelled: 2 of 2.",
            "The tasks stay usable: raced again without mirror C, mirror B wins.",
            // 3. the timeout
            "3. A timeout: await(timeout:) and .timeout(_:)",
            "await(timeout: 0.25) threw TaskigError.timedOut after",
            "It gave up on that run, not on the report: report.isCancelled is false.",
            #".timeout(0.25).recover { ... } gave "yesterday's report""#,
            // 4. cancellation
            "4. Cancellation: cancel()",
            "with CancellableTaskError.taskWasCancelled.",
            "The job saw the cancellation and stopped",
            // 5. the loopback fetch
            "5. A fetch: TaskigURL and awaitAll(concurrency:)",
            "Serving on http://127.0.0.1:",
            "4.0 MiB",
            "/bytes/4194304",
            "404",
            "/missing",
            "and it is stopped now.",
            "Done in",
        ] {
            #expect(run.output.contains(line), "missing: \(line)\n\(run.output)")
        }
        #expect(!run.output.contains("failed"), "\(run.output)")

        // Piped, the progress line is a plain line per quarter of each pass, from the Progress.
        #expect(run.output.contains("   4 at a time: "), "no progress lines\n\(run.output)")
        let started = try #require(number(in: run.output, after: "Leaving the loop cancelled the runs still going: "))
        let files = try #require(number(in: run.output, after: "Counting the words of "))
        #expect(started >= 3 && started < files, "leaving the loop after three must start nothing more")
        let timerTicks = try #require(number(in: run.output, after: "a timer on the main queue fired "))
        #expect(timerTicks > 0, "the main queue was not serviced while the main thread waited")
        let peak = try #require(number(in: run.output, after: "The server saw at most "))
        #expect((1...4).contains(peak), "the loopback server saw \(peak) requests at once at concurrency 4")
        // Both tasks would take 2 s or more; the waits must end long before. Beside two busy
        // loops (load 13–25), 250–258 ms in a debug build and under ThreadSanitizer (both give up
        // or cancel at 250 ms).
        let timedOut = try #require(number(in: run.output, after: "threw TaskigError.timedOut after "))
        #expect(timedOut < 1500)
        let cancelled = try #require(number(in: run.output, after: "The waiter returned after "))
        #expect(cancelled < 1500)
    }

    @Test func aDirectoryAndURLsOfTheUsersOwnReplaceTheBuiltInWorkloads() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("taskig-demo-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("one two three\n".utf8).write(to: directory.appendingPathComponent("a.txt"))
        try Data("four five\n".utf8).write(to: directory.appendingPathComponent("b.txt"))

        // Nothing listens on port 1, so the fetch is refused at once, without any network.
        let run = try await runDemo(arguments: [directory.path, "--concurrency", "2", "--urls", "http://127.0.0.1:1/"])
        #expect(run.status == 0, "\(run.errors)\n\(run.output)")
        #expect(run.output.contains("2 files: 2 lines, 5 words"), "\(run.output)")
        #expect(run.output.contains("2 at a time"), "\(run.output)")
        #expect(run.output.contains("Fetching 1 URL, 2 at a time."), "\(run.output)")
        #expect(run.output.contains("URLError -1004"), "\(run.output)")
        #expect(!run.output.contains("Serving on"), "\(run.output)")
    }

    @Test func helpPrintsTheUsage() async throws {
        for flag in ["--help", "-h"] {
            let run = try await runDemo(arguments: [flag])
            #expect(run.status == 0)
            #expect(run.output.contains("usage: taskig-demo [DIRECTORY] [--urls URL ...] [--concurrency N]"))
            #expect(run.output.contains("--latency MS"))
            #expect(!run.output.contains("1. A bounded batch"), "--help must not run the demo")
        }
    }

    @Test(arguments: [
        ["--no-such-option"],
        ["--concurrency", "0"],
        ["--concurrency"],
        ["--urls"],
        ["--urls", "ftp://example.com/file"],
        ["/no/such/directory/for/taskig-demo"],
    ])
    func aBadArgumentExplainsItselfAndExitsWithTwo(arguments: [String]) async throws {
        let run = try await runDemo(arguments: arguments)
        #expect(run.status == 2, "\(arguments): \(run.errors)")
        #expect(run.errors.hasPrefix("taskig-demo: "), "\(run.errors)")
        #expect(run.errors.contains("usage: taskig-demo"), "\(run.errors)")
        #expect(run.output.isEmpty, "\(run.output)")
    }

    /// The whole number printed right after `prefix` in `text`.
    private func number(in text: String, after prefix: String) -> Int? {
        guard let start = text.range(of: prefix)?.upperBound else { return nil }
        return Int(text[start...].prefix { $0.isNumber || $0 == "," }.filter(\.isNumber))
    }

    /// Runs the demo with a watchdog: a run that hangs is killed after 30 s and fails the test.
    private func runDemo(arguments: [String] = []) async throws -> Run {
        let demo = try #require(Self.demoURL(), "taskig-demo was not built")
        let (run, exited) = try await offTheCooperativePool { () throws -> (Run, Bool) in
            let process = Process()
            process.executableURL = demo
            process.arguments = arguments
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            // A hang is ended by force: SIGTERM, then SIGKILL for a process that ignores it.
            let watchdog = DispatchWorkItem {
                process.terminate()
                Thread.sleep(forTimeInterval: 2)
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
            // Both pipes are drained at once, so that a lot written to either cannot block it.
            let complaintsRead = DispatchSemaphore(value: 0)
            let complaintsBox = LockedValue(Data())
            Thread.detachNewThread {
                complaintsBox.set(errors.fileHandleForReading.readDataToEndOfFile())
                complaintsRead.signal()
            }
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            complaintsRead.wait()
            let complaints = complaintsBox.value
            process.waitUntilExit()
            watchdog.cancel()
            let run = Run(
                status: process.terminationStatus,
                output: String(decoding: printed, as: UTF8.self),
                errors: String(decoding: complaints, as: UTF8.self)
            )
            return (run, process.terminationReason == .exit)
        }
        #expect(exited, "taskig-demo hung or crashed")
        return run
    }

    /// The demo is built next to the test bundle.
    private static func demoURL() -> URL? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("taskig-demo")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}
