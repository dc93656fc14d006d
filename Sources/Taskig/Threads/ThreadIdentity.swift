import Foundation

/// Who the calling thread is, as a wait report names it, and whether it runs a Swift task.
enum ThreadIdentity {
    /// The calling thread's id as the system and debuggers show it: the kernel's thread id on
    /// Linux (`/proc/<pid>/task/<id>`), `pthread_threadid_np` on Darwin.
    static var currentID: UInt64 {
        Platform.currentThreadID
    }

    /// The calling thread's name: "main" for the main thread, the name it was given
    /// (`taskig.worker` for Taskig's workers), or none. The name Foundation keeps comes before
    /// the system's: Foundation does not always pass it on.
    static var currentName: String {
        if MainThread.isCurrent { return "main" }
        if let name = WorkerThread.currentName { return name }
        if let name = Thread.current.name, !name.isEmpty { return name }
        return Platform.currentThreadName
    }

    /// The label of the Dispatch queue whose block the calling thread runs, if any; a global
    /// queue's label, or none, is `nil`.
    static var currentQueueLabel: String? {
        guard let label = Platform.currentDispatchQueueLabel, !label.hasPrefix("com.apple.root.") else { return nil }
        return label
    }

    /// Whether the calling code runs a job of a Swift task on a thread of Swift's own (the
    /// cooperative pool, or the main actor's), where a blocking wait holds a thread that Swift
    /// concurrency may need. Taskig's workers, which run the `async` bodies of its tasks, are
    /// not such threads.
    static var isInsideSwiftTask: Bool {
        guard !WorkerThread.isCurrent else { return false }
        return withUnsafeCurrentTask { $0 != nil }
    }
}
