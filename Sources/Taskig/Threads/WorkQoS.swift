import Dispatch

/// The quality of service that work runs at: Dispatch's classes, in order of importance.
///
/// Taskig runs global-queue work on its own workers (see ``WorkerPool``), not on Dispatch's
/// threads, so it carries the quality of service itself: each job handed to a worker carries
/// one (see ``RunPlacement``), and the worker runs at it (see ``WorkerThread/runJob(at:)``).
///
/// - A job that nobody waits for (`async`, `start()`, `value`) runs at its queue's: a task on
///   `.background` runs at background, one on `.userInteractive` at user-interactive.
/// - A job that a thread waits for (a wait with a deadline, any wait on the main thread, a
///   collection's lanes) runs at the higher of its queue's and the waiter's, as Dispatch raises
///   a queue's work that a higher thread waits for with `sync`. The main thread counts as
///   user-interactive, so a main-thread wait never waits for slower work than itself, which
///   Xcode's Thread Performance Checker reports as a priority inversion.
/// - Work that a waiter runs in place runs at the waiter's.
///
/// Darwin applies it to the thread; Linux computes the same decisions and applies nothing
/// (see ``Platform/setCurrentThreadQoS(_:)``).
@usableFromInline
enum WorkQoS: UInt8, Comparable, Sendable, CaseIterable {
    /// No quality of service: a thread Taskig knows nothing of, on Linux.
    case unspecified
    case background
    case utility
    case `default`
    case userInitiated
    case userInteractive

    /// The class of a queue made with `DispatchQueue.global(qos: qosClass)`; `.unspecified`
    /// gives Dispatch's default queue.
    init(_ qosClass: DispatchQoS.QoSClass) {
        switch qosClass {
        case .background: self = .background
        case .utility: self = .utility
        case .default: self = .default
        case .userInitiated: self = .userInitiated
        case .userInteractive: self = .userInteractive
        case .unspecified: self = .unspecified
        @unknown default: self = .default
        }
    }

    var dispatchClass: DispatchQoS.QoSClass {
        switch self {
        case .unspecified: .unspecified
        case .background: .background
        case .utility: .utility
        case .default: .default
        case .userInitiated: .userInitiated
        case .userInteractive: .userInteractive
        }
    }

    @inlinable
    static func < (lhs: WorkQoS, rhs: WorkQoS) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The quality of service of a job handed to a worker: the queue's, raised to the
    /// waiter's when a thread waits for it.
    @inlinable
    static func ofHandOff(_ queue: WorkQoS, waiter: WorkQoS) -> WorkQoS {
        max(queue, waiter)
    }

    /// The quality of service a worker that runs at `current` (`nil`: not set yet) switches to
    /// for a job of `job`; `nil` when it runs at it already. A job of no quality of service runs
    /// at the default one.
    static func change(from current: WorkQoS?, to job: WorkQoS) -> WorkQoS? {
        let wanted = job == .unspecified ? .default : job
        return wanted == current ? nil : wanted
    }

    /// The calling thread's quality of service as a waiter: user-interactive on the main
    /// thread, the job's on a worker, and the system's answer on any other thread.
    @usableFromInline
    static var ofWaiter: WorkQoS {
        if MainThread.isCurrent { return .userInteractive }
        return WorkerThread.qos ?? WorkQoS(Platform.currentThreadQoS)
    }
}
