import Foundation

/// Whether the current thread is one of Taskig's workers (see ``WorkerPool``), and the quality
/// of service it runs its jobs at.
@usableFromInline
enum WorkerThread {
    /// Per thread: nothing for a thread that is not a worker; for a worker, the raw value of
    /// the quality of service of its jobs plus one, as an address: 1 until its first job.
    private static let slot = ThreadLocalSlot()

    /// Marks the calling thread as a worker, for the rest of its life, and gives it `name`,
    /// which debuggers and `/proc/<pid>/task/<tid>/comm` show.
    static func markCurrent(name: String) {
        slot.pointer = UnsafeMutableRawPointer(bitPattern: 1)
        // Set from the thread itself: Foundation only passes the name to the system then.
        Thread.current.name = name
    }

    /// The name workers are given.
    static let name = "taskig.worker"

    /// ``name`` when the calling thread is a worker.
    static var currentName: String? {
        isCurrent ? name : nil
    }

    @usableFromInline
    static var isCurrent: Bool {
        slot.pointer != nil
    }

    /// The quality of service of the job the calling worker runs; `nil` on a thread that is
    /// not a worker, ``WorkQoS/unspecified`` before a worker's first job.
    @usableFromInline
    static var qos: WorkQoS? {
        guard let pointer = slot.pointer else { return nil }
        return WorkQoS(rawValue: UInt8(truncatingIfNeeded: Int(bitPattern: pointer) - 1))
    }

    /// Makes the calling worker run at `qos` for its next job, when it runs at another (see
    /// ``WorkQoS/change(from:to:)``).
    static func runJob(at qos: WorkQoS) {
        guard let change = WorkQoS.change(from: Self.qos, to: qos) else { return }
        Platform.setCurrentThreadQoS(change.dispatchClass)
        slot.pointer = UnsafeMutableRawPointer(bitPattern: Int(change.rawValue) + 1)
    }
}
