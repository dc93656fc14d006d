import CoreFoundation
import Dispatch

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Every call into the C library and the system whose spelling or meaning differs by platform,
/// so that the rest of Taskig is written once, with no platform branches and no imports of
/// `Darwin`, `Glibc` or `Musl`.
///
/// Each member says what it does on Darwin (Apple's platforms) and on Linux (glibc or musl).
@usableFromInline
enum Platform {
    /// Gives up the core to another thread that is ready to run, if any (`sched_yield`).
    @inlinable
    static func yieldProcessor() {
        sched_yield()
    }

    /// Whether `DispatchQueue.global(qos:)` and `DispatchQueue.main` return the same object every
    /// time, so that a queue can be recognized by identity. Darwin: yes, and its `setSpecific`
    /// refuses the global queues. Linux: no, each call makes a new wrapper of the same queue.
    @usableFromInline
    static var dispatchQueuesHaveIdentity: Bool {
        #if canImport(Darwin)
            true
        #else
            false
        #endif
    }

    /// Whether Foundation traps when a progress's positive total is set to zero. Linux
    /// (swift-corelibs-foundation): yes, it rescales the children's share by the old total over
    /// the new one. Darwin: no.
    static var progressTrapsOnATotalSetToZero: Bool {
        #if canImport(Darwin)
            false
        #else
            true
        #endif
    }

    /// The main run loop's default mode, under the name each Foundation gives it.
    static var defaultRunLoopMode: CFRunLoopMode {
        #if canImport(Darwin)
            .defaultMode
        #else
            kCFRunLoopDefaultMode
        #endif
    }
}

// MARK: - Quality of service

extension Platform {
    /// Runs the calling thread at `qos` from now on. Darwin: `pthread_set_qos_class_self_np`.
    /// Linux: nothing. A thread's nice value, its only equivalent there, can be raised by any
    /// thread but lowered back only with `CAP_SYS_NICE`, so a worker that once ran background
    /// work would run everything after it slowly.
    static func setCurrentThreadQoS(_ qos: DispatchQoS.QoSClass) {
        #if canImport(Darwin)
            _ = pthread_set_qos_class_self_np(qos.rawValue, 0)
        #endif
    }

    /// The quality of service the calling thread runs at. Darwin: `qos_class_self()`. Linux:
    /// `.unspecified`: threads have none there.
    @usableFromInline
    static var currentThreadQoS: DispatchQoS.QoSClass {
        #if canImport(Darwin)
            DispatchQoS.QoSClass(rawValue: qos_class_self()) ?? .unspecified
        #else
            .unspecified
        #endif
    }
}

// MARK: - Thread identity

extension Platform {
    /// The calling thread's id as the system and debuggers show it. Darwin:
    /// `pthread_threadid_np`. Linux: the kernel's thread id (`/proc/<pid>/task/<id>`), read from
    /// the thread's CPU clock (see ``ThreadClock``), since Glibc's `gettid` is not visible from
    /// Swift.
    static var currentThreadID: UInt64 {
        #if canImport(Darwin)
            var id: UInt64 = 0
            pthread_threadid_np(nil, &id)
            return id
        #else
            guard let clock = ThreadClock.ofCurrentThread() else { return 0 }
            return UInt64(UInt32(bitPattern: clock.threadID))
        #endif
    }

    /// The name the calling thread was given, or none. Darwin: `pthread_getname_np`. Linux:
    /// `/proc/self/task/<id>/comm`, since Glibc declares `pthread_getname_np` only for GNU
    /// sources.
    /// The label of the Dispatch queue whose block the calling thread runs: Dispatch's
    /// `dispatch_queue_get_label(DISPATCH_CURRENT_QUEUE_LABEL)`, which the Swift overlay does not
    /// offer, looked up by name; `nil` when it is empty or cannot be found.
    static var currentDispatchQueueLabel: String? {
        guard let label = getQueueLabel?(nil) else { return nil }
        let text = String(cString: label)
        return text.isEmpty ? nil : text
    }

    private typealias GetQueueLabel = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?

    private static let getQueueLabel: GetQueueLabel? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "dispatch_queue_get_label") else { return nil }
        return unsafeBitCast(symbol, to: GetQueueLabel.self)
    }()

    static var currentThreadName: String {
        var buffer = [UInt8](repeating: 0, count: 64)
        #if canImport(Darwin)
            let count = buffer.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { name in
                    pthread_getname_np(pthread_self(), name.baseAddress!, name.count) == 0
                        ? strlen(name.baseAddress!) : 0
                }
            }
        #else
            let file = open("/proc/self/task/\(currentThreadID)/comm", O_RDONLY | O_CLOEXEC)
            guard file >= 0 else { return "" }
            defer { close(file) }
            let count = max(0, buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) })
        #endif
        return String(decoding: buffer.prefix(Int(count)), as: UTF8.self).trimmingCharacters(in: .newlines)
    }
}

// MARK: - Signal stacks

extension Platform {
    /// The size of a thread's alternate signal stack: room for Swift's crash handler, which
    /// runs on it when the thread's own stack has overflowed and has another process write the
    /// report (8 KiB was enough for it on Linux; 64 KiB leaves room for other handlers), and at
    /// least the system's `SIGSTKSZ` (8 KiB on Linux, 128 KiB on Darwin).
    static let signalStackSize = max(64 * 1024, Int(SIGSTKSZ))

    /// Gives the calling thread an alternate signal stack of ``signalStackSize`` bytes
    /// (`sigaltstack`), so that a signal handler can run after a stack overflow; returns its
    /// memory, for ``removeSignalStack(_:)`` when the thread ends. The same call on every
    /// platform; `nil` if the system refused it.
    static func installSignalStack() -> UnsafeMutableRawPointer? {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: signalStackSize, alignment: 16)
        var stack = stack_t()
        stack.ss_sp = memory
        stack.ss_size = signalStackSize
        stack.ss_flags = 0
        guard sigaltstack(&stack, nil) == 0 else {
            memory.deallocate()
            return nil
        }
        return memory
    }

    /// Takes the calling thread's alternate signal stack away and frees `memory`, which
    /// ``installSignalStack()`` returned on this thread.
    static func removeSignalStack(_ memory: UnsafeMutableRawPointer) {
        var stack = stack_t()
        stack.ss_flags = Int32(SS_DISABLE)
        _ = sigaltstack(&stack, nil)
        memory.deallocate()
    }
}

// MARK: - Standard error

extension Platform {
    /// Writes `text` to standard error with one `write(2)`, taking no lock, not even stdio's:
    /// safe from a `deinit` that runs under the user's own lock.
    static func writeToStandardError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
    }
}

// MARK: - Thread-local storage

extension Platform {
    /// A key of the platform's thread-specific storage (`pthread_key_t`).
    @usableFromInline
    typealias ThreadLocalKey = pthread_key_t

    /// A new key; with `releasesObjectAtThreadExit`, what a thread stores under it is a retained
    /// object, released when the thread ends.
    static func makeThreadLocalKey(releasesObjectAtThreadExit: Bool) -> ThreadLocalKey {
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
        return key
    }

    /// The calling thread's value under `key`.
    @inlinable
    static func threadLocalValue(_ key: ThreadLocalKey) -> UnsafeMutableRawPointer? {
        pthread_getspecific(key)
    }

    /// Sets the calling thread's value under `key`.
    @inlinable
    static func setThreadLocalValue(_ value: UnsafeMutableRawPointer?, for key: ThreadLocalKey) {
        pthread_setspecific(key, value)
    }
}

// MARK: - Mutex

extension Platform {
    /// The platform mutex, as plain functions on a pointer to it (see ``LockedState``).
    ///
    /// Darwin: `os_unfair_lock`, which traps when the thread that holds it takes it again.
    /// Linux: an adaptive `pthread_mutex_t`; in debug builds an error-checking one, which then
    /// traps as Darwin does instead of hanging.
    @usableFromInline
    enum Lock {
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

            /// A freshly made mutex to copy, as `PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP` would give
            /// in C. Adaptive mutexes spin a little before they sleep, which suits Taskig's
            /// critical sections of a few instructions: a waiter checking a result must not send
            /// the thread delivering it to sleep. Debug builds check instead: a thread that takes
            /// a lock it holds gets an error rather than sleeping for good.
            @usableFromInline
            static let template: pthread_mutex_t = {
                var attributes = pthread_mutexattr_t()
                pthread_mutexattr_init(&attributes)
                defer { pthread_mutexattr_destroy(&attributes) }
                #if DEBUG
                    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
                #else
                    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
                #endif
                var mutex = pthread_mutex_t()
                let status = pthread_mutex_init(&mutex, &attributes)
                precondition(status == 0, "Taskig could not create a mutex (error \(status))")
                return mutex
            }()

            @inlinable
            static func initialize(_ lock: UnsafeMutablePointer<Primitive>) {
                lock.initialize(to: template)
            }

            @inlinable
            static func destroy(_ lock: UnsafeMutablePointer<Primitive>) {
                pthread_mutex_destroy(lock)
                lock.deinitialize(count: 1)
            }

            @inlinable
            static func lock(_ lock: UnsafeMutablePointer<Primitive>) {
                #if DEBUG
                    let status = pthread_mutex_lock(lock)
                    precondition(
                        status == 0,
                        "BUG IN TASKIG: a lock was taken again on the thread that holds it (error \(status))")
                #else
                    pthread_mutex_lock(lock)
                #endif
            }

            @inlinable
            static func unlock(_ lock: UnsafeMutablePointer<Primitive>) {
                pthread_mutex_unlock(lock)
            }
        #endif
    }
}

// MARK: - Thread times

extension Platform {
    /// How to read one thread's time on a core and its run state from any thread (see
    /// ``ThreadTimes``). Darwin: the thread's Mach port and `thread_info`. Linux: the thread's
    /// CPU clock (`pthread_getcpuclockid`) and its state in `/proc/self/task/<tid>/stat`.
    @usableFromInline
    struct ThreadClock: Sendable, Equatable {
        #if canImport(Darwin)
            private let thread: mach_port_t
        #else
            private let clock: clockid_t
        #endif

        /// The calling thread's; `nil` where the system gives none. It costs no system call.
        static func ofCurrentThread() -> ThreadClock? {
            #if canImport(Darwin)
                let thread = pthread_mach_thread_np(pthread_self())
                return thread == 0 ? nil : ThreadClock(thread: thread)
            #else
                var clock = clockid_t()
                return pthread_getcpuclockid(pthread_self(), &clock) == 0 ? ThreadClock(clock: clock) : nil
            #endif
        }

        /// Nanoseconds on a core so far, and whether the thread is blocked now (`nil` where the
        /// system does not say, a Linux without `/proc`); `nil` once the thread has ended.
        func sample() -> (onCore: UInt64, isBlocked: Bool?)? {
            #if canImport(Darwin)
                var info = thread_basic_info()
                var count = mach_msg_type_number_t(
                    MemoryLayout<thread_basic_info_data_t>.size / MemoryLayout<natural_t>.size)
                let result = withUnsafeMutablePointer(to: &info) { info in
                    info.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                        thread_info(thread, thread_flavor_t(THREAD_BASIC_INFO), $0, &count)
                    }
                }
                guard result == KERN_SUCCESS else { return nil }
                let seconds = UInt64(info.user_time.seconds) + UInt64(info.system_time.seconds)
                let microseconds = UInt64(info.user_time.microseconds) + UInt64(info.system_time.microseconds)
                return (seconds * 1_000_000_000 + microseconds * 1_000, info.run_state != TH_STATE_RUNNING)
            #else
                // The clock counts the time of a thread on a core up to now; the kernel's scheduler
                // statistics only up to its last switch.
                var time = timespec()
                guard clock_gettime(clock, &time) == 0 else { return nil }
                return (UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec), isBlockedNow)
            #endif
        }

        #if !canImport(Darwin)
            /// The thread's id, from its CPU clock's id, which Linux makes of it as
            /// `~tid << 3 | 6` (a per-thread clock of the scheduler's runtime; see the kernel's
            /// `MAKE_THREAD_CPUCLOCK`). Glibc's `gettid` is not visible from Swift.
            var threadID: Int32 { ~(clock >> 3) }

            /// Whether the thread sleeps in the kernel now, from the state in
            /// `/proc/self/task/<tid>/stat`: `S` (a sleep, a wait for a lock or a callback) or `D`
            /// (a read from a disk), rather than `R` (on a core, or ready for one).
            private var isBlockedNow: Bool? {
                let file = open("/proc/self/task/\(threadID)/stat", O_RDONLY | O_CLOEXEC)
                guard file >= 0 else { return nil }
                defer { close(file) }
                var bytes = [UInt8](repeating: 0, count: 128)
                let count = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
                // `tid (name) state …`, where the name may hold spaces and parentheses.
                guard count > 0, let nameEnd = bytes[..<count].lastIndex(of: UInt8(ascii: ")")), nameEnd + 2 < count
                else { return nil }
                let state = bytes[nameEnd + 2]
                return state == UInt8(ascii: "S") || state == UInt8(ascii: "D")
            }
        #endif
    }
}
