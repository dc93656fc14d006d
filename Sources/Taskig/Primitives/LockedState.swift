#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// State guarded by the platform's own mutex, both in one allocation.
///
/// Taskig uses this rather than `Synchronization.Mutex` because ThreadSanitizer understands
/// the platform mutex (`pthread_mutex_t`, `os_unfair_lock`) but, on Linux, not `Mutex`,
/// whose uninstrumented lock made it report races that cannot happen. The lock lives in the
/// tail of a `ManagedBuffer`, so its address never changes.
///
/// `@unchecked Sendable` is safe here: the state is only reachable through ``withLock(_:)``,
/// which holds the mutex for the whole access.
///
/// `package`, not `public`: TaskigURL, in the same package, guards its state with it too.
@usableFromInline
package struct LockedState<State>: @unchecked Sendable {
    @usableFromInline
    let buffer: ManagedBuffer<State, PlatformLock.Primitive>

    @inlinable
    package init(_ initial: State) {
        buffer = LockedStateBuffer<State>.create(minimumCapacity: 1) { buffer in
            buffer.withUnsafeMutablePointerToElements { PlatformLock.initialize($0) }
            return initial
        }
    }

    /// Another reference to the state of an existing `LockedState`, for owners that keep the
    /// buffer unretained.
    @inlinable
    init(buffer: ManagedBuffer<State, PlatformLock.Primitive>) {
        self.buffer = buffer
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        // Through `ManagedBufferPointer`, which reaches the state by address: going through
        // `ManagedBuffer.header` would count as an access to it before the lock is taken.
        try ManagedBufferPointer<State, PlatformLock.Primitive>(unsafeBufferObject: buffer).withUnsafeMutablePointers {
            state, lock in
            PlatformLock.lock(lock)
            defer { PlatformLock.unlock(lock) }
            return try body(&state.pointee)
        }
    }
}

extension LockedState: CustomReflectable {
    /// No children: a mirror must not read the state without the lock.
    @usableFromInline
    package var customMirror: Mirror { Mirror(self, children: [:]) }
}

@usableFromInline
final class LockedStateBuffer<State>: ManagedBuffer<State, PlatformLock.Primitive> {
    deinit {
        withUnsafeMutablePointerToElements { PlatformLock.destroy($0) }
    }
}

/// The platform mutex, as plain functions on a pointer to it.
@usableFromInline
enum PlatformLock {
    #if canImport(Darwin)
        @usableFromInline
        typealias Primitive = os_unfair_lock

        @inlinable
        static func initialize(_ lock: UnsafeMutablePointer<Primitive>) {
            lock.initialize(to: os_unfair_lock())
        }

        @inlinable
        static func destroy(_ lock: UnsafeMutablePointer<Primitive>) {
            lock.deinitialize(count: 1)
        }

        @inlinable
        static func lock(_ lock: UnsafeMutablePointer<Primitive>) {
            os_unfair_lock_lock(lock)
        }

        @inlinable
        static func unlock(_ lock: UnsafeMutablePointer<Primitive>) {
            os_unfair_lock_unlock(lock)
        }
    #else
        @usableFromInline
        typealias Primitive = pthread_mutex_t

        /// A freshly made adaptive mutex to copy, as `PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP`
        /// would give in C. Adaptive mutexes spin a little before they sleep, which suits
        /// Taskig's critical sections of a few instructions: a waiter checking a result must
        /// not send the thread delivering it to sleep.
        @usableFromInline
        static let adaptiveTemplate: pthread_mutex_t = {
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            defer { pthread_mutexattr_destroy(&attributes) }
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
            var mutex = pthread_mutex_t()
            let status = pthread_mutex_init(&mutex, &attributes)
            precondition(status == 0, "Taskig could not create a mutex (error \(status))")
            return mutex
        }()

        @inlinable
        static func initialize(_ lock: UnsafeMutablePointer<Primitive>) {
            lock.initialize(to: adaptiveTemplate)
        }

        @inlinable
        static func destroy(_ lock: UnsafeMutablePointer<Primitive>) {
            pthread_mutex_destroy(lock)
            lock.deinitialize(count: 1)
        }

        @inlinable
        static func lock(_ lock: UnsafeMutablePointer<Primitive>) {
            pthread_mutex_lock(lock)
        }

        @inlinable
        static func unlock(_ lock: UnsafeMutablePointer<Primitive>) {
            pthread_mutex_unlock(lock)
        }
    #endif
}
