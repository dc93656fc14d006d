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
/// delivering others (see ``CompletionDrain``): the one it waits for may be among them. A
/// wait that parks publishes what it waits for (see ``WaitRegistration``), and one that would
/// wait for work that waits for it in turn fails instead (see ``WaitCycle``).
@usableFromInline
enum BlockingWait {
    /// Waits for `cell`, at most until `deadline`. A wait that is about to park publishes
    /// `subject` (see ``WaitRegistration``), which it builds only then; it ends without a
    /// value when the deadline passes, or when parking would close a cycle of waits that wait
    /// for each other (see ``WaitCycle``).
    @inlinable
    static func outcome<Value>(
        of cell: CompletionCell<Value>, until deadline: DispatchTime? = nil, for subject: () -> WaitSubject
    ) -> WaitEnd<Value> {
        if let value = cell.completedValue { return .value(value) }
        CompletionDrain.runDeferred()
        let held = QueueAffinity.heldHandOff
        if MainThread.isCurrent {
            return mainThreadOutcome(of: cell, until: deadline, holding: held, for: subject)
        }
        // Work handed to this thread needs it awake at once; anything else may end within a spin.
        if held?.hasHandedJobs != true, BriefSpin.until(deadline: deadline, { cell.isCompleted }),
            let value = cell.completedValue
        {
            return .value(value)
        }
        let registration: WaitRegistration
        switch WaitRegistration.begin(subject(), parks: true) {
        case .success(let published): registration = published
        case .failure(let deadlock): return cell.completedValue.map { .value($0) } ?? .deadlock(deadlock)
        }
        defer { registration.end() }
        let semaphore = DispatchSemaphore(value: 0)
        cell.whenComplete(reading: { _ in semaphore.signal() })
        // A worker that holds no queue Taskig has tagged waits for the cell alone: unlike other
        // threads, it does not watch for a queue it holds being tagged meanwhile (see
        // ``ServedQueues``).
        guard held != nil || !WorkerThread.isCurrent else {
            guard park(on: semaphore, until: deadline), let value = cell.completedValue else { return .deadlinePassed }
            return .value(value)
        }
        var served = ServedQueues { semaphore.signal() }
        defer { served.end() }
        while true {
            served.runHandedJobs()
            if let value = cell.completedValue { return .value(value) }
            guard park(on: semaphore, until: deadline) else { return .deadlinePassed }
        }
    }

    /// Waits for `cell`, which only its own outcome ends: a wait with no deadline that no
    /// cycle can involve (`subject` is no edge of the wait-for graph, see ``WaitSubject``).
    @inlinable
    static func value<Value>(of cell: CompletionCell<Value>, for subject: () -> WaitSubject) -> Value {
        guard case .value(let value) = outcome(of: cell, for: subject) else {
            preconditionFailure("BUG IN TASKIG: a wait that no deadline or cycle can end ended without a value")
        }
        return value
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
    static func mainThreadOutcome<Value>(
        of cell: CompletionCell<Value>, until deadline: DispatchTime?, holding held: QueueHandOff?,
        for subject: () -> WaitSubject
    ) -> WaitEnd<Value> {
        // Taskig's jobs for the main queue that come during the spin run here, as handed to
        // the wait, before the run loop's turn would run them as main-queue blocks.
        if held?.hasHandedJobs != true,
            BriefSpin.until(
                deadline: deadline, every: BriefSpin.mainQueueServiceNanoseconds,
                do: {
                    held?.runKeptJobs()
                    MainThreadWait.serviceWithoutSleeping()
                }, { cell.isCompleted }),
            let value = cell.completedValue
        {
            return .value(value)
        }
        let registration: WaitRegistration
        switch WaitRegistration.begin(subject(), parks: true) {
        case .success(let published): registration = published
        case .failure(let deadlock): return cell.completedValue.map { .value($0) } ?? .deadlock(deadlock)
        }
        defer { registration.end() }
        let wait = MainThreadWait()
        cell.whenComplete(reading: { _ in wait.wake() })
        var served = ServedQueues(wake: wait.wake)
        defer { served.end() }
        while true {
            wait.clearWakeUps()
            served.runHandedJobs()
            if let value = cell.completedValue { return .value(value) }
            if let deadline, DispatchTime.now() >= deadline { return .deadlinePassed }
            wait.sleep(until: deadline)
        }
    }
}

/// How a blocking wait ended.
@usableFromInline
enum WaitEnd<Value> {
    /// The cell completed with this value.
    case value(Value)
    /// The deadline passed first.
    case deadlinePassed
    /// Parking would have closed a cycle of waits (``TaskigError/deadlock(_:)``).
    case deadlock(TaskigError)

    /// The value of a wait with no deadline, for a wait of tasks that cannot fail, and so cannot
    /// report a deadlock: the program stops with the cycle, where it would otherwise hang.
    /// `wait` names the wait in the message.
    @inlinable
    func valueOrStop(_ wait: @autoclosure () -> String) -> Value {
        switch self {
        case .value(let value):
            return value
        case .deadlinePassed:
            preconditionFailure("BUG IN TASKIG: a wait with no deadline passed its deadline")
        case .deadlock(let deadlock):
            requireCorrectUse(false, "\(wait()) would never return: \(deadlock)")
            preconditionFailure("\(deadlock)")
        }
    }
}
