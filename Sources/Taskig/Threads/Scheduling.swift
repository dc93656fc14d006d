import Dispatch
import Foundation

/// Taskig's timers: timeouts, delays and retry backoff.
///
/// They fire on one serial queue of Dispatch's, which gets a thread at once even when the
/// global pool is busy with blocked work, and which gives its thread back when idle. What a
/// timer runs there is short (completing a cell, cancelling a run); anything that runs user
/// code from there (a continuation, an `async` callback) moves on to a worker first (see
/// ``isOnTimerQueue``), so that one slow continuation cannot hold up the other timers.
@usableFromInline
enum Scheduling {
    /// Delays are capped here (about 31 years) so that huge values cannot overflow a
    /// `DispatchTime`.
    @usableFromInline
    static let longestDelay: TimeInterval = 1e9

    @usableFromInline
    static let timerQueue = DispatchQueue(label: "taskig.timers")

    /// Per thread: set while a timer's work runs there. Every block on the timer queue is a
    /// timer's (see ``after(_:_:)``). A thread-local read, rather than the queue's specific
    /// value, since every continuation that resumes a chain asks (row 10c).
    private static let runsTimer = ThreadLocalSlot()

    /// Whether this code runs on the timer queue.
    @usableFromInline
    static var isOnTimerQueue: Bool {
        runsTimer.pointer != nil
    }

    /// Runs `work` on the timer queue after `seconds` (at once for zero or less). `work` must
    /// be short and must not run user code.
    @usableFromInline
    static func after(_ seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        at(.now() + min(max(seconds, 0), longestDelay), work)
    }

    /// Runs `work` on the timer queue at `deadline` (at once if it has passed), with the same
    /// limits as ``after(_:_:)``.
    @usableFromInline
    static func at(_ deadline: DispatchTime, _ work: @escaping @Sendable () -> Void) {
        timerQueue.asyncAfter(deadline: deadline) {
            runsTimer.pointer = UnsafeMutableRawPointer(bitPattern: 1)
            defer { runsTimer.pointer = nil }
            work()
        }
    }

    /// Calls `callback` with `value`, moving to a worker first when this is the timer queue:
    /// for callbacks that run user code. Off the timer queue it is a plain call, with no
    /// closure made around the callback.
    @inlinable
    static func leavingTimerQueue<Value>(deliver value: Value, to callback: @escaping @Sendable (Value) -> Void) {
        if isOnTimerQueue {
            // Only handed to the one callback; a task's outcome may cross threads.
            nonisolated(unsafe) let value = value
            WorkerPool.shared.submit { callback(value) }
        } else {
            callback(value)
        }
    }
}
