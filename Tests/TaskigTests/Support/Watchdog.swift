import Dispatch
import Foundation
import Testing

/// Runs `body` on its own thread and fails the test, instead of hanging the suite, when it
/// does not return within `seconds` times `timingSlack`. Returns `nil` after a hang.
///
/// The watchdog only tells a hang from slow progress, so it scales with ThreadSanitizer's
/// slack everywhere: under ThreadSanitizer, with busy loops beside the other suites, a
/// 20,000-task wait outlasted 10 s and a stress test 60 s.
///
/// The test suspends while it waits, so a blocking body never holds one of Swift
/// concurrency's few cooperative threads.
func withWatchdog<T: Sendable>(
    seconds: Double = 10,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () throws -> T
) async throws -> T? {
    let seconds = seconds * timingSlack
    let outcome: Result<T, Error>? = await withCheckedContinuation { continuation in
        let resumed = LockedValue(false)
        let resumeOnce: @Sendable (Result<T, Error>?) -> Void = { outcome in
            let first = resumed.update { wasResumed in
                defer { wasResumed = true }
                return !wasResumed
            }
            if first { continuation.resume(returning: outcome) }
        }
        Thread.detachNewThread { resumeOnce(Result(catching: body)) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { resumeOnce(nil) }
    }
    guard let outcome else {
        Issue.record("hung: did not finish within \(seconds) s", sourceLocation: sourceLocation)
        return nil
    }
    return try outcome.get()
}

/// Seconds since `start`.
func secondsSince(_ start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

/// Measures how long `body` takes, in seconds.
func timed<T>(_ body: () throws -> T) rethrows -> (value: T, seconds: Double) {
    let start = DispatchTime.now()
    let value = try body()
    return (value, secondsSince(start))
}

/// Runs `body` after `seconds` on a thread of its own, so that it is on time even when the
/// tests keep Dispatch's global pool busy.
func runLater(_ seconds: Double, _ body: @escaping @Sendable () -> Void) {
    Thread.detachNewThread {
        Thread.sleep(forTimeInterval: seconds)
        body()
    }
}

/// Runs blocking `body` on a thread of its own while the calling test suspends, so that a
/// test waiting for a child process does not hold one of Swift's few cooperative threads.
func offTheCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result(catching: body)) }
    }
}

/// Calls `body` in a synchronous context. A test calls a blocking wait from an async test
/// function on purpose when the wait cannot block (its tasks are done, fail at once, or stop
/// the process); Swift reports a direct call there, since the waits are `noasync`.
func synchronously<T>(_ body: () throws -> T) rethrows -> T {
    try body()
}
