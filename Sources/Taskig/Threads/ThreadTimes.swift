#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How one thread spends its time, readable from any thread: how long it has run on a core,
/// and whether it is blocked now (in a sleep, a synchronous read, a wait for a callback) or
/// ready to run.
///
/// A collection's looks use it to add lanes only beside lanes that block (see ``Batch``):
/// not beside lanes that compute, however long their tasks, nor beside lanes that only wait
/// for a core on a loaded machine, which are ready to run.
@usableFromInline
struct ThreadTimes: Sendable, Equatable {
    /// Nanoseconds on a core so far, and whether the thread is blocked now; where the system
    /// does not say (a Linux without `/proc`), it counts as blocked, and only the time on a
    /// core tells.
    @usableFromInline
    struct Reading: Sendable {
        @usableFromInline
        let onCore: UInt64
        @usableFromInline
        let isBlocked: Bool
    }

    #if canImport(Darwin)
        private let thread: mach_port_t
    #else
        private let clock: clockid_t
    #endif

    /// The calling thread's; `nil` where the system gives none. It costs no system call.
    @usableFromInline
    static func ofCurrentThread() -> ThreadTimes? {
        #if canImport(Darwin)
            let thread = pthread_mach_thread_np(pthread_self())
            return thread == 0 ? nil : ThreadTimes(thread: thread)
        #else
            var clock = clockid_t()
            return pthread_getcpuclockid(pthread_self(), &clock) == 0 ? ThreadTimes(clock: clock) : nil
        #endif
    }

    /// The thread's time on a core and its state; `nil` once it has ended.
    @usableFromInline
    func sample() -> Reading? {
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
            return Reading(
                onCore: seconds * 1_000_000_000 + microseconds * 1_000,
                isBlocked: info.run_state != TH_STATE_RUNNING)
        #else
            // The clock counts the time of a thread on a core up to now; the kernel's scheduler
            // statistics only up to its last switch.
            var time = timespec()
            guard clock_gettime(clock, &time) == 0 else { return nil }
            return Reading(
                onCore: UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec),
                isBlocked: isBlockedNow ?? true)
        #endif
    }

    #if !canImport(Darwin)
        /// The thread's id, from its CPU clock's id, which Linux makes of it as
        /// `~tid << 3 | 6` (a per-thread clock of the scheduler's runtime; see the kernel's
        /// `MAKE_THREAD_CPUCLOCK`). Glibc's `gettid` is not visible from Swift.
        private var threadID: Int32 { ~(clock >> 3) }

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
