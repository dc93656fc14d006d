import Foundation
import Synchronization
import Testing

/// Thrown by ``withWatchdog(_:sourceLocation:_:)`` when the body did not finish in time.
struct WatchdogExpired: Error {}

/// Runs `body` on a thread of its own and waits at most `seconds` for it, so that a bug that
/// hangs fails its test instead of the whole run. On expiry it records an issue, throws
/// ``WatchdogExpired`` and leaves the thread behind.
func withWatchdog<T: Sendable>(
    _ seconds: TimeInterval = 10,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () throws -> T
) throws -> T {
    let work = Background { Result { try body() } }
    guard let outcome = work.value(within: seconds, sourceLocation: sourceLocation) else {
        throw WatchdogExpired()
    }
    return try outcome.get()
}

/// Work started on a thread of its own, whose value a test collects later, with a time limit:
/// for a waiter that must block while the test does something else (cancel, say).
final class Background<T: Sendable>: Sendable {
    private let latch = Latch<T>()

    init(_ body: @escaping @Sendable () -> T) {
        Thread { [latch] in latch.fill(body()) }.start()
    }

    /// The body's value, or `nil` (and a recorded issue) when it has not finished within
    /// `seconds`.
    func value(within seconds: TimeInterval, sourceLocation: SourceLocation = #_sourceLocation) -> T? {
        latch.value(within: seconds, sourceLocation: sourceLocation)
    }
}

/// A value that arrives once, from another thread, for a test to wait for with a time limit.
final class Latch<T: Sendable>: Sendable {
    private let slot = Mutex<T?>(nil)
    private let filled = DispatchSemaphore(value: 0)

    func fill(_ value: T) {
        slot.withLock { $0 = value }
        filled.signal()
    }

    /// The value, or `nil` (and a recorded issue) when it has not arrived within `seconds`
    /// (times ``timingSlack``).
    func value(within seconds: TimeInterval, sourceLocation: SourceLocation = #_sourceLocation) -> T? {
        let seconds = seconds * timingSlack
        guard filled.wait(timeout: .now() + seconds) == .success else {
            Issue.record("did not finish within \(seconds) s", sourceLocation: sourceLocation)
            return nil
        }
        filled.signal()
        return slot.withLock { $0 }
    }
}

/// Runs `body` with a fresh ``TestHTTPServer`` and stops the server afterwards.
func withServer<T>(_ body: (TestHTTPServer) throws -> T) throws -> T {
    let server = try TestHTTPServer()
    defer { server.stop() }
    return try body(server)
}

/// Seconds since `start`.
func secondsSince(_ start: Date) -> TimeInterval {
    Date().timeIntervalSince(start)
}

/// Runs Swift tasks on a serial queue of their own, which gets a thread at once: tests that
/// block (as the synchronous ones here do) can hold every thread of the cooperative pool.
final class QueueTaskExecutor: TaskExecutor {
    static let shared = QueueTaskExecutor()
    private let queue = DispatchQueue(label: "TaskigURLTests.executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
