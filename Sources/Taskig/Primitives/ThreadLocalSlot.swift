/// One pointer per thread, through the platform's thread-specific storage.
@usableFromInline
struct ThreadLocalSlot: Sendable {
    private let key: Platform.ThreadLocalKey

    /// - Parameter releasesObjectAtThreadExit: the slot holds a retained object, which is
    ///   released when its thread ends.
    init(releasesObjectAtThreadExit: Bool = false) {
        key = Platform.makeThreadLocalKey(releasesObjectAtThreadExit: releasesObjectAtThreadExit)
    }

    /// The calling thread's pointer.
    @usableFromInline
    var pointer: UnsafeMutableRawPointer? {
        get { Platform.threadLocalValue(key) }
        nonmutating set { Platform.setThreadLocalValue(newValue, for: key) }
    }
}
