import Foundation

/// Whether the current thread is one of Taskig's workers (see ``WorkerPool``).
@usableFromInline
enum WorkerThread {
    private static let slot = ThreadLocalSlot()

    /// Marks the calling thread as a worker, for the rest of its life, and gives it `name`,
    /// which debuggers and `/proc/<pid>/task/<tid>/comm` show.
    static func markCurrent(name: String) {
        slot.pointer = UnsafeMutableRawPointer(bitPattern: 1)
        // Set from the thread itself: Foundation only passes the name to the system then.
        Thread.current.name = name
    }

    @usableFromInline
    static var isCurrent: Bool {
        slot.pointer != nil
    }
}
