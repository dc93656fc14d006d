import Dispatch
import Foundation

/// Starting a run later, on its queue, without anyone blocking for it.
@usableFromInline
enum Scheduling {
    /// Delays are capped here (about 31 years) so that huge values cannot overflow a
    /// `DispatchTime`.
    @usableFromInline
    static let longestDelay: TimeInterval = 1e9

    /// Where Taskig's own timers fire (timeouts, delays, retry backoff). A serial queue gets
    /// a thread of its own at once, so the timers stay on time even when the global pool is
    /// busy with blocked work; what they run is short.
    @usableFromInline
    static let timerQueue = DispatchQueue(label: "taskig.timers")

    @inlinable
    static func start<Value>(_ cell: CompletionCell<Value>, on queue: DispatchQueue, after delay: TimeInterval) {
        requireCorrectUse(!delay.isNaN, "async(delayBy:) was given NaN; pass a number of seconds")
        if delay > 0 {
            queue.asyncAfter(deadline: .now() + min(delay, longestDelay)) { cell.startIfNeeded() }
        } else {
            queue.async { cell.startIfNeeded() }
        }
    }

    /// Runs `work` soon, never on the calling thread: on `queue`, or for a global queue on a
    /// Taskig worker, so that work that blocks cannot starve the global pool and work that
    /// must start is never stuck behind it. Past the pool's limit this waits up to 2 ms for a
    /// busy worker to come free before it makes a new one.
    @inlinable
    static func startSoon(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        switch QueueAffinity.kind(of: queue) {
        case .globalConcurrent:
            _ = WorkerPool.shared.trySubmit(work, admission: .always)
        case .main, .other:
            queue.async(execute: work)
        }
    }

    /// Runs `work` after `seconds`, as ``startSoon(on:_:)`` does for a global queue. The
    /// timer fires on ``timerQueue``, which only hands the work on: what the work starts
    /// (continuations, waiters) must not hold up the other timers.
    @inlinable
    static func after(_ seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        timerQueue.asyncAfter(deadline: .now() + min(max(seconds, 0), longestDelay)) {
            _ = WorkerPool.shared.trySubmit(work, admission: .alwaysAtOnce)
        }
    }
}
