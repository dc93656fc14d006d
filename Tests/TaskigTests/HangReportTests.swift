import Foundation
import Testing

@testable import Taskig

/// A wait that cannot end explains itself: `TASKIG_STALL_REPORT` prints the wait report, which
/// names the wait's call site and what holds it up, and `WaitReport.current()` gives the same
/// as values. The hangs run in a process of their own (`taskig-hangs`), which ends itself.
@Suite struct HangReportTests {
    /// Runs `scenario` with a stall time of 0.2 s, for `seconds`, and returns what it printed,
    /// standard error included.
    private func report(of scenario: String, seconds: Double = 1) async throws -> String {
        let (output, exitedCleanly) = try await runPackageExecutable(
            "taskig-hangs", arguments: [scenario, "\(seconds * timingSlack)"],
            environment: ["TASKIG_STALL_REPORT": "\(0.2 * timingSlack)"], includesStandardError: true,
            timeout: 30 * timingSlack)
        #expect(exitedCleanly, "\(output)")
        return output
    }

    @Test func aWaitOnAQueueForATaskWhoseQueueTargetsItSaysSo() async throws {
        let output = try await report(of: "queue-targets-queue")
        #expect(output.contains("Taskig wait report"), "\(output)")
        #expect(
            output.contains(
                "\"main\" waits at taskig_hangs/Hangs.swift:21 for a Task<Int> on queue 'com.example.database.reads'"),
            "\(output)")
        #expect(output.contains("not started: queued on 'com.example.database.reads'"), "\(output)")
        #expect(
            output.contains("If queue 'com.example.database.reads' targets 'com.example.database'"), "\(output)")
    }

    @Test func workBlockedOnTheCallersLockShowsWhereItRuns() async throws {
        let output = try await report(of: "user-lock")
        #expect(output.contains("waits at taskig_hangs/Hangs.swift:49 for a ThrowableTask<Int>"), "\(output)")
        #expect(output.contains("the work is running on thread "), "\(output)")
        #expect(output.contains("\"taskig.worker\""), "\(output)")
    }

    @Test func aTaskThatSpinsForALaterTaskOfItsBatchShowsTheCollectionWait() async throws {
        let output = try await report(of: "spin-for-later-task")
        #expect(output.contains("awaitAll at taskig_hangs/Hangs.swift:37"), "\(output)")
        #expect(output.contains("0 of 2 settled, 1 in flight on 1 lane, concurrency 1"), "\(output)")
        // Each wait is reported once: the report that shows it is the only one.
        #expect(output.components(separatedBy: "Taskig wait report").count == 2, "\(output)")
    }

    @Test func aBlockingWaitInsideASwiftTaskIsWarnedAboutAndMarked() async throws {
        let output = try await report(of: "swift-tasks-blocking")
        // The warning comes once for the call site, however many Swift tasks wait there.
        let warning = "warning: the blocking wait at taskig_hangs/Hangs.swift:96 parks inside a Swift task"
        #expect(output.components(separatedBy: warning).count == 2, "\(output)")
        #expect(output.contains("it blocks a thread of Swift's cooperative pool"), "\(output)")
        #expect(output.contains("for a Future<Int> started at taskig_hangs/Hangs.swift:92"), "\(output)")
    }

    @Test func futuresThatWaitForEachOtherFailInsteadOfHanging() async throws {
        let output = try await report(of: "future-cycle")
        #expect(output.contains("TaskigError.deadlock: 2 waits wait for work that waits for each other"), "\(output)")
        #expect(!output.contains("Taskig wait report"), "nothing stalls: \(output)")
    }

    @Test func withoutTheVariableNothingIsPrinted() async throws {
        let (output, _) = try await runPackageExecutable(
            "taskig-hangs", arguments: ["user-lock", "\(0.5 * timingSlack)"], includesStandardError: true,
            timeout: 30 * timingSlack)
        #expect(output == "exiting\n", "\(output)")
    }

    /// The report as values: a thread waiting for a slow task, and where that task runs.
    @Test func theReportShowsAParkedWaitAndWhereItsWorkRuns() async throws {
        let release = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        let slow = ThrowableTask { () -> Int in
            running.signal()
            release.wait()
            return 1
        }
        let waitLine: UInt = #line + 2
        let thread = Thread {
            _ = try? slow.await(timeout: 60)
        }
        thread.start()
        running.wait()
        defer { release.signal() }
        let deadline = Date().addingTimeInterval(10 * timingSlack)
        var wait: WaitReport.Wait?
        while wait == nil && Date() < deadline {
            wait = WaitReport.current().waits.first {
                $0.callSite == CallSite(fileID: "TaskigTests/HangReportTests.swift", line: waitLine)
            }
            if wait == nil { usleep(1_000) }
        }
        let found = try #require(wait, "the wait never showed in the report")
        #expect(found.callSite == CallSite(fileID: "TaskigTests/HangReportTests.swift", line: waitLine))
        #expect(found.waitsFor == "a ThrowableTask<Int>")
        #expect(found.hasDeadline)
        guard case .running(let worker, _) = found.work else {
            Issue.record("expected the work running on a worker, got \(found.work)")
            return
        }
        #expect(worker.name == "taskig.worker")
        #expect(WaitReport.current().description.contains("waits at TaskigTests/HangReportTests.swift:\(waitLine)"))
    }
}
