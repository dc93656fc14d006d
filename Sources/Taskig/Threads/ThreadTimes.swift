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

    private let clock: Platform.ThreadClock

    /// The calling thread's; `nil` where the system gives none. It costs no system call.
    @usableFromInline
    static func ofCurrentThread() -> ThreadTimes? {
        Platform.ThreadClock.ofCurrentThread().map(ThreadTimes.init(clock:))
    }

    /// The thread's time on a core and its state; `nil` once it has ended.
    @usableFromInline
    func sample() -> Reading? {
        guard let (onCore, isBlocked) = clock.sample() else { return nil }
        return Reading(onCore: onCore, isBlocked: isBlocked ?? true)
    }
}
