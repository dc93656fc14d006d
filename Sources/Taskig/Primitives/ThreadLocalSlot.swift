#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One pointer per thread, through the platform's thread-specific storage.
@usableFromInline
struct ThreadLocalSlot: Sendable {
    private let key: pthread_key_t

    /// - Parameter releasesObjectAtThreadExit: the slot holds a retained object, which is
    ///   released when its thread ends.
    init(releasesObjectAtThreadExit: Bool = false) {
        var key = pthread_key_t()
        let status: Int32
        if releasesObjectAtThreadExit {
            #if canImport(Darwin)
                status = pthread_key_create(&key) { Unmanaged<AnyObject>.fromOpaque($0).release() }
            #else
                status = pthread_key_create(&key) { pointer in
                    if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
                }
            #endif
        } else {
            status = pthread_key_create(&key, nil)
        }
        precondition(status == 0, "Taskig could not create a thread-local key (error \(status))")
        self.key = key
    }

    /// The calling thread's pointer.
    @usableFromInline
    var pointer: UnsafeMutableRawPointer? {
        get { pthread_getspecific(key) }
        nonmutating set { pthread_setspecific(key, newValue) }
    }
}
