import Foundation

@testable import Taskig

/// A value shared between test threads. (Taskig's own lock, which ThreadSanitizer
/// understands; `Synchronization.Mutex` is invisible to it on Linux.)
final class LockedValue<Value: Sendable>: Sendable {
    private let state: LockedState<Value>
    init(_ value: Value) { state = LockedState(value) }
    var value: Value { state.withLock { $0 } }
    func set(_ value: Value) { state.withLock { $0 = value } }
    @discardableResult
    func update<R: Sendable>(_ body: (inout Value) -> R) -> R { state.withLock { body(&$0) } }
}

/// Counts how many pieces of work run at once, and the most that ever did.
final class ConcurrencyProbe: Sendable {
    private let state = LockedState((current: 0, peak: 0, started: 0))

    func enter() {
        state.withLock { state in
            state.current += 1
            state.started += 1
            state.peak = max(state.peak, state.current)
        }
    }

    func exit() {
        state.withLock { $0.current -= 1 }
    }

    /// Runs `body` counted as one piece of work.
    func measure<T>(_ body: () throws -> T) rethrows -> T {
        enter()
        defer { exit() }
        return try body()
    }

    var peak: Int { state.withLock { $0.peak } }
    var started: Int { state.withLock { $0.started } }
    var current: Int { state.withLock { $0.current } }
}

/// An error the tests throw on purpose.
struct TestError: Error, Equatable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}

/// Sleeps the current thread.
func sleep(seconds: Double) {
    Thread.sleep(forTimeInterval: seconds)
}

extension Result {
    /// The error of a failure, `nil` for a success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Whether `error` is Taskig's `timedOut`.
func isTimedOut(_ error: Error?) -> Bool {
    if case TaskigError.timedOut? = error { return true }
    return false
}

/// Whether `error` is the cancellation of a run.
func isCancellation(_ error: Error?) -> Bool {
    if case CancellableTaskError.taskWasCancelled? = error { return true }
    return false
}

/// Whether `error` is Taskig's `emptySequence`.
func isEmptySequence(_ error: Error?) -> Bool {
    if case TaskigError.emptySequence? = error { return true }
    return false
}

/// The error `body` throws, or `nil`.
func thrownError<T>(_ body: () throws -> T) -> Error? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// How much longer than usual a timing bound may be: ThreadSanitizer slows everything down
/// several times over, so bounds meant for normal runs are stretched under it.
let timingSlack: Double = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") == nil ? 1 : 10

/// Stands in for the work of a task that checks for cancellation: records how often it ran
/// and whether it saw its own run cancelled (``ThrowableTask/isCurrentTaskCancelled``).
final class RunObserver: Sendable {
    private let state = LockedState((runs: 0, cancellationsSeen: 0))
    private let started = DispatchSemaphore(value: 0)

    /// Sleeps up to `seconds` in steps of 5 ms, and stops early once its run is cancelled.
    /// Returns whether it slept the whole time.
    @discardableResult
    func sleep(_ seconds: Double) -> Bool {
        state.withLock { $0.runs += 1 }
        started.signal()
        let deadline = DispatchTime.now() + seconds
        while DispatchTime.now() < deadline {
            if ThrowableTask.isCurrentTaskCancelled {
                state.withLock { $0.cancellationsSeen += 1 }
                return false
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }

    /// Waits up to `seconds` for the work to start: only a hang waits it out, so it scales
    /// with ThreadSanitizer's slack like a watchdog.
    func waitUntilStarted(within seconds: Double = 10 * timingSlack) -> Bool {
        started.wait(timeout: .now() + seconds) == .success
    }

    /// Waits up to `seconds` for the work to see its run cancelled (a hang guard, as above).
    func waitUntilCancellationSeen(within seconds: Double = 10 * timingSlack) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while !sawCancellation && DispatchTime.now() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        return sawCancellation
    }

    var sawCancellation: Bool { cancellationsSeen > 0 }
    /// How many runs saw their cancellation.
    var cancellationsSeen: Int { state.withLock { $0.cancellationsSeen } }
    var runs: Int { state.withLock { $0.runs } }
}

/// How many cores this process may run on: fewer than the machine has under `taskset`, which
/// `ProcessInfo.activeProcessorCount` does not see. Linux lists them in `/proc/self/status`
/// as a hexadecimal mask (`Cpus_allowed:\t3`).
let allowedCoreCount: Int = {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else {
        return ProcessInfo.processInfo.activeProcessorCount
    }
    return line.dropFirst("Cpus_allowed:".count).reduce(0) { count, digit in
        count + (digit.hexDigitValue?.nonzeroBitCount ?? 0)
    }
}()

/// A gate that work waits at until the test opens it: a test orders its work by construction
/// (the slow one ends only once the test has seen what must come first) instead of by how long
/// each sleeps, so that a loaded machine cannot reorder it. Had the order broken, the work
/// would wait at the gate until its own timeout, which a test's watchdog or bound then shows.
final class Gate: Sendable {
    private let group = DispatchGroup()
    private let isOpen = LockedValue(false)

    init() { group.enter() }

    deinit { open() }

    func open() {
        let opensNow = isOpen.update { isOpen in
            defer { isOpen = true }
            return !isOpen
        }
        if opensNow { group.leave() }
    }

    /// Waits until the gate opens, or `seconds` have passed; returns whether it opened.
    @discardableResult
    func wait(upTo seconds: Double) -> Bool {
        group.wait(timeout: .now() + seconds) == .success
    }
}

/// Counts the pieces of work that arrive, and lets each wait until `count` of them have:
/// work that must run side by side proves it by meeting here, and work that did not (the bug)
/// waits out its timeout instead, which the barrier counts.
final class Barrier: Sendable {
    private let count: Int
    private let arrived = LockedValue(0)
    private let timedOut = LockedValue(0)
    private let allArrived = Gate()

    init(count: Int) { self.count = count }

    /// Arrives and waits up to `seconds` for `count` arrivals in all.
    func arriveAndWait(upTo seconds: Double) {
        if arrived.update({
            $0 += 1; return $0
        }) >= count {
            allArrived.open()
        }
        if !allArrived.wait(upTo: seconds) { timedOut.update { $0 += 1 } }
    }

    /// How many arrivals waited out their timeout: met only with the bug.
    var waitsThatTimedOut: Int { timedOut.value }
}

/// The moment something happened, noted on any thread: a test times a wait from the moment
/// its outcome was decided (a race's winner ended, say) rather than from its start, which
/// other tests' work in the same pool can delay for seconds.
final class Moment: Sendable {
    private let time = LockedValue<UInt64?>(nil)

    func note() { time.set(DispatchTime.now().uptimeNanoseconds) }

    /// Seconds from the noted moment to now; `nil` when it was never noted.
    var secondsSince: Double? {
        time.value.map { Double(DispatchTime.now().uptimeNanoseconds - $0) / 1e9 }
    }
}
