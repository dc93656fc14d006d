#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether the current thread is one of Taskig's workers (see ``WorkerPool``).
@usableFromInline
enum WorkerThread {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "Taskig could not create a thread-local key (error \(status))")
        return key
    }()

    /// Marks the calling thread as a worker, for the rest of its life.
    static func markCurrent() {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }

    @usableFromInline
    static var isCurrent: Bool {
        pthread_getspecific(key) != nil
    }
}
