import Foundation

/// Waiting by checking, for things another thread is about to do.
///
/// Parking a thread and waking it again costs tens of microseconds on a small virtual
/// machine; when the other thread is only a few microseconds from done, checking for a
/// moment is cheaper. Each check yields the processor first, so that a thread sharing the
/// core can run.
@usableFromInline
enum BriefSpin {
    /// Calls `isDone` until it returns `true` or `nanoseconds` have passed. Returns whether
    /// `isDone` returned `true`.
    @inlinable
    static func until(atMost nanoseconds: UInt64, _ isDone: () -> Bool) -> Bool {
        let start = DispatchTime.now().uptimeNanoseconds
        while !isDone() {
            guard DispatchTime.now().uptimeNanoseconds - start < nanoseconds else { return false }
            sched_yield()
        }
        return true
    }
}
