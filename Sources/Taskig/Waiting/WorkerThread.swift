/// Whether the current thread is one of Taskig's workers (see ``WorkerPool``).
@usableFromInline
enum WorkerThread {
    private static let slot = ThreadLocalSlot()

    /// Marks the calling thread as a worker, for the rest of its life.
    static func markCurrent() {
        slot.pointer = UnsafeMutableRawPointer(bitPattern: 1)
    }

    @usableFromInline
    static var isCurrent: Bool {
        slot.pointer != nil
    }
}
