import Dispatch
import Foundation

/// How a thread waits for a cell to complete.
///
/// - On the main thread the wait runs the main run loop, so blocks sent to
///   `DispatchQueue.main` keep running; a completion on another thread wakes the loop by
///   sending it an empty block.
/// - On any other thread the wait parks the thread on a semaphore.
/// - A thread that holds a queue Taskig knows (the main thread holds the main queue) serves it
///   while it waits: it runs the Taskig work sent to that queue (see ``QueueHandOff``), which
///   would otherwise wait behind it for good.
///
/// A cell that is already complete costs no parking at all, which is the common case when
/// the work ran in place; one that completes within a brief spin (see ``BriefSpin``) costs
/// none either. Before it parks, a thread delivers the completions it queued while
/// delivering others (see ``CompletionDrain``): the one it waits for may be among them.
@usableFromInline
enum BlockingWait {
    /// Waits for `cell`, at most until `deadline`. Returns `nil` only when the deadline passed.
    @inlinable
    static func value<Value>(of cell: CompletionCell<Value>, until deadline: DispatchTime? = nil) -> Value? {
        if let value = cell.completedValue { return value }
        CompletionDrain.runDeferred()
        let held = QueueAffinity.heldHandOff
        if MainThread.isCurrent {
            return mainThreadValue(of: cell, until: deadline, holding: held)
        }
        // Work handed to this thread needs it awake at once; anything else may end within a spin.
        if held?.hasHandedJobs != true, BriefSpin.until(deadline: deadline, { cell.isCompleted }),
            let value = cell.completedValue
        {
            return value
        }
        let semaphore = DispatchSemaphore(value: 0)
        cell.whenComplete(reading: { _ in semaphore.signal() })
        // A worker holds no queue: it waits for the cell alone.
        guard held != nil || !WorkerThread.isCurrent else {
            return park(on: semaphore, until: deadline) ? cell.completedValue : nil
        }
        var served = ServedQueues { semaphore.signal() }
        defer { served.end() }
        while true {
            served.runHandedJobs()
            if let value = cell.completedValue { return value }
            guard park(on: semaphore, until: deadline) else { return nil }
        }
    }

    /// Parks on `semaphore` until it is signalled (`true`) or `deadline` passes (`false`).
    @inlinable
    static func park(on semaphore: DispatchSemaphore, until deadline: DispatchTime?) -> Bool {
        guard let deadline else {
            semaphore.wait()
            return true
        }
        return semaphore.wait(timeout: deadline) == .success
    }

    /// The main thread's wait: it runs the main run loop, so that the main queue keeps running,
    /// and serves the queue it holds. A brief spin first, which handles the main queue's blocks
    /// every few microseconds, catches work that ends at once without putting the thread to
    /// sleep (see ``BriefSpin``); then it sleeps in the run loop until woken (see
    /// ``MainThreadWait``).
    @inlinable
    static func mainThreadValue<Value>(
        of cell: CompletionCell<Value>, until deadline: DispatchTime?, holding held: QueueHandOff?
    ) -> Value? {
        if held?.hasHandedJobs != true,
            BriefSpin.until(
                deadline: deadline, every: BriefSpin.mainQueueServiceNanoseconds,
                do: MainThreadWait.serviceWithoutSleeping, { cell.isCompleted }),
            let value = cell.completedValue
        {
            return value
        }
        let wait = MainThreadWait()
        cell.whenComplete(reading: { _ in wait.wake() })
        var served = ServedQueues(wake: wait.wake)
        defer { served.end() }
        while true {
            wait.clearWakeUps()
            served.runHandedJobs()
            if let value = cell.completedValue { return value }
            if let deadline, DispatchTime.now() >= deadline { return nil }
            wait.sleep(until: deadline)
        }
    }
}
