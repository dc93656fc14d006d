import Dispatch
import Synchronization

/// A short spin before a thread goes to sleep, for the hand-offs that usually end within
/// microseconds: a waiter whose work runs on a worker, and a worker between two jobs.
///
/// Waking a sleeping thread costs a system call on one side and a trip through the scheduler
/// on the other, many times a hand-off between two awake threads (rows 1 and 13 of the
/// benchmarks), and a loop of waits pays it twice per wait. A thread that stays awake for a
/// moment sees the other side's answer as it comes. Each turn yields the core, so that on a
/// loaded machine the spin leaves it to the thread that is to answer. On one core there is
/// nobody to answer while the thread spins, so it does not; and at most one thread per core
/// spins at once: workers spinning at the end of a wave of jobs would hold off the threads
/// they wait for (LoadShapeTests' timeout storm).
@usableFromInline
enum BriefSpin {
    /// How long a waiter spins before it sleeps: several round trips through a worker while
    /// both threads are awake. Row 13 (13a–13c).
    @usableFromInline
    static let waiterNanoseconds: UInt64 = ActiveProcessors.count > 1 ? 20_000 : 0

    /// How long a worker spins for its next job before it sleeps: the gap between two waits of
    /// a loop, so that a loop of waits on the main thread never puts the worker to sleep (row 13).
    @usableFromInline
    static let workerNanoseconds: UInt64 = ActiveProcessors.count > 1 ? 50_000 : 0

    /// How often the main thread's spin handles the main queue's blocks, so that work that calls
    /// `DispatchQueue.main.sync` does not wait out the whole spin. MainThreadScriptTests' cases
    /// of work calling `DispatchQueue.main.sync`, and row 13d.
    @usableFromInline
    static var mainQueueServiceNanoseconds: UInt64 { 5_000 }

    /// Spins until `isDone`, or until `nanoseconds` have passed or `deadline` has; returns
    /// whether `isDone`. Every `interval` nanoseconds it calls `service`.
    @inlinable
    static func until(
        nanoseconds: UInt64 = waiterNanoseconds, deadline: DispatchTime? = nil, every interval: UInt64 = .max,
        do service: () -> Void = {}, _ isDone: () -> Bool
    ) -> Bool {
        if isDone() { return true }
        guard nanoseconds > 0, takeTurn() else { return false }
        defer { spinning.subtract(1, ordering: .relaxed) }
        let start = DispatchTime.now().uptimeNanoseconds
        let end = min(start &+ nanoseconds, deadline?.uptimeNanoseconds ?? .max)
        var nextService = start.addingReportingOverflow(interval).overflow ? .max : start + interval
        while true {
            Platform.yieldProcessor()
            if isDone() { return true }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= end { return false }
            if now >= nextService {
                service()
                nextService = DispatchTime.now().uptimeNanoseconds &+ interval
            }
        }
    }

    /// How many threads spin now.
    @usableFromInline
    static let spinning = Atomic(0)

    /// Counts this thread among the spinning ones, unless there is one per core already.
    @inlinable
    static func takeTurn() -> Bool {
        if spinning.add(1, ordering: .relaxed).newValue <= ActiveProcessors.count { return true }
        spinning.subtract(1, ordering: .relaxed)
        return false
    }
}
