import Dispatch
import Foundation

/// How a thread waits for a cell to complete.
///
/// - On the main thread the wait runs the main run loop, so blocks sent to
///   `DispatchQueue.main` (including the task's own work, or its completion) keep running;
///   a completion on another thread wakes the loop by sending it an empty block.
/// - On any other thread the wait parks the thread on a semaphore.
///
/// A cell that is already complete costs no parking at all, which is the common case when
/// the work ran in place. Before it parks, a thread delivers the completions it queued while
/// delivering others (see ``CompletionDrain``): the one it waits for may be among them.
@usableFromInline
enum BlockingWait {
    /// Waits for `cell`, at most until `deadline`. Returns `nil` only when the deadline passed.
    @inlinable
    static func value<Value>(of cell: CompletionCell<Value>, until deadline: DispatchTime? = nil) -> Value? {
        if let value = cell.completedValue { return value }
        CompletionDrain.runDeferred()
        if MainThread.isCurrent {
            return runMainRunLoop(until: cell, deadline: deadline)
        }
        let semaphore = DispatchSemaphore(value: 0)
        cell.whenComplete(reading: { _ in semaphore.signal() })
        if let deadline {
            _ = semaphore.wait(timeout: deadline)
        } else {
            semaphore.wait()
        }
        return cell.completedValue
    }

    /// The longest the main thread sleeps in the run loop before it looks at the cell again.
    /// A wake-up block normally ends the sleep at once; this bound only matters when the main
    /// queue cannot be serviced (a wait inside a block that is itself running on the main queue).
    ///
    /// The bound has a cost: for every turn with a time limit, swift-corelibs-foundation arms a
    /// Dispatch timer whose handlers run on Dispatch's own threads. A turn without a limit
    /// would need none, but would never end inside a main-queue block, and a waiter cannot
    /// tell from Dispatch whether it is in one: `DispatchQueue.getSpecific` gives the main
    /// queue's values anywhere on the main thread.
    @usableFromInline
    static let mainThreadPollInterval: TimeInterval = 0.01

    @inlinable
    static func runMainRunLoop<Value>(until cell: CompletionCell<Value>, deadline: DispatchTime?) -> Value? {
        cell.whenComplete(reading: { _ in DispatchQueue.main.async {} })
        while true {
            if let value = cell.completedValue { return value }
            var slice = mainThreadPollInterval
            if let deadline {
                let now = DispatchTime.now()
                guard now < deadline else { return nil }
                slice = min(slice, Double(deadline.uptimeNanoseconds - now.uptimeNanoseconds) / 1e9)
            }
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: slice))
        }
    }
}
