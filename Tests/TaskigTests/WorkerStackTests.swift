import Foundation
import Testing

@testable import Taskig

/// Descends until the frames below `start`, an address on this thread's stack, take `bytes`;
/// returns how many they took. Each frame holds a buffer that is read after the call, so that
/// neither the buffer nor the call can be optimized away.
@inline(never)
private func descend(from start: UInt, until bytes: UInt) -> UInt {
    var frame = (UInt(0), UInt(0), UInt(0), UInt(0), UInt(0), UInt(0), UInt(0), UInt(0))
    let here = withUnsafeMutablePointer(to: &frame) { UInt(bitPattern: $0) }
    frame.0 = start &- here
    if frame.0 >= bytes { return frame.0 }
    frame.1 = descend(from: start, until: bytes)
    return max(frame.0, frame.1)
}

/// Taskig's workers: one stack size on every platform, and a crash report when user code
/// overflows it.
@Suite struct WorkerStackTests {
    /// User code runs on a worker as deep as half of ``WorkerPool/stackSize``, measured by
    /// address: debug and ThreadSanitizer frames are two to three times larger than release
    /// ones, so the depth in frames would say little. On Darwin, whose threads get 512 KiB
    /// unless told otherwise, this overflowed.
    @Test func userCodeOnAWorkerUsesHalfOfItsStack() async throws {
        let half = UInt(WorkerPool.stackSize / 2)
        let outcome = try await withWatchdog {
            let result = LockedValue<(used: UInt, onWorker: Bool, stackSize: Int)?>(nil)
            let ended = DispatchSemaphore(value: 0)
            // `async`, which nobody waits for, always runs on a worker.
            Task { () -> (used: UInt, onWorker: Bool, stackSize: Int) in
                var start = 0
                let address = withUnsafeMutablePointer(to: &start) { UInt(bitPattern: $0) }
                return (descend(from: address, until: half), WorkerThread.isCurrent, Thread.current.stackSize)
            }.async { outcome in
                result.set(outcome)
                ended.signal()
            }
            ended.wait()
            return result.value
        }
        guard let outcome = try #require(outcome) else { return }
        #expect(outcome.onWorker)
        #expect(outcome.stackSize == WorkerPool.stackSize)
        #expect(outcome.used >= half)
    }

    /// A task whose work awaits itself without end overflows a worker's stack. The process dies
    /// of the signal, and Swift's crash report (on by default on Linux; asked for here, so that
    /// the environment cannot turn it off) says where, as it does for the main thread: the
    /// crash handler runs on the worker's alternate signal stack. Without one the process died
    /// of SIGSEGV with nothing on its standard error.
    @Test func aStackOverflowOnAWorkerPrintsSwiftsCrashReport() async throws {
        let end = try await runDyingPackageExecutable(
            "taskig-load-shapes", arguments: ["stack-overflow-on-worker"],
            environment: ["SWIFT_BACKTRACE": "enable=yes,interactive=no"], timeout: 120 * timingSlack)
        // Under ThreadSanitizer the sanitizer's handler takes the signal, on an alternate stack
        // of its own, and reports the overflow itself (Swift's backtracer cannot run there).
        if end.errorOutput.contains("ThreadSanitizer") {
            #expect(end.errorOutput.contains("ERROR: ThreadSanitizer: stack-overflow"), "\(end.errorOutput)")
            return
        }
        #expect(end.signal == SIGSEGV || end.signal == SIGBUS, "\(end)")
        #expect(end.errorOutput.contains("*** Program crashed:"), "\(end.errorOutput)")
        // The thread that crashed, whose frames the report lists in full, is a worker.
        let crashedThread = try #require(end.errorOutput.firstRange(of: " crashed:\n"), "\(end.errorOutput)")
        #expect(end.errorOutput[crashedThread.upperBound...].contains("WorkerPool.work()"), "\(end.errorOutput)")
    }
}
