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
    let buffer: ManagedBuffer<State, Platform.Lock.Primitive>

    @inlinable
    package init(_ initial: State) {
        buffer = LockedStateBuffer<State>.create(minimumCapacity: 1) { buffer in
            buffer.withUnsafeMutablePointerToElements { Platform.Lock.initialize($0) }
            return initial
        }
    }

    /// Another reference to the state of an existing `LockedState`, for owners that keep the
    /// buffer unretained.
    @inlinable
    init(buffer: ManagedBuffer<State, Platform.Lock.Primitive>) {
        self.buffer = buffer
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        // Through `ManagedBufferPointer`, which reaches the state by address: going through
        // `ManagedBuffer.header` would count as an access to it before the lock is taken.
        try ManagedBufferPointer<State, Platform.Lock.Primitive>(unsafeBufferObject: buffer).withUnsafeMutablePointers {
            state, lock in
            Platform.Lock.lock(lock)
            defer { Platform.Lock.unlock(lock) }
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
final class LockedStateBuffer<State>: ManagedBuffer<State, Platform.Lock.Primitive> {
    deinit {
        withUnsafeMutablePointerToElements { Platform.Lock.destroy($0) }
    }
}
