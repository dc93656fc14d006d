import Foundation

/// Waiting by checking, for things another thread is about to do.
///
/// Parking a thread and waking it again costs tens of microseconds on a small virtual
/// machine; when the other thread is only a few microseconds from done, checking for a
/// moment is cheaper. Each check yields the processor first, so that a thread sharing the
/// core can run.
@usableFromInline
enum BriefSpin {
    /// How a spin ended.
    @usableFromInline
    enum End {
        /// `isDone` returned `true`.
        case done
        /// The time ran out.
        case timedOut
        /// One yield took longer than the spin's `yieldLimit`: another thread was busy on
        /// this processor, and a thread that goes on spinning there only runs in its gaps.
        case processorBusy
    }

    /// Calls `isDone` until it returns `true` or `nanoseconds` have passed, or, with a
    /// `yieldLimit`, until one yield took longer than that.
    @inlinable
    static func until(atMost nanoseconds: UInt64, yieldLimit: UInt64 = .max, _ isDone: () -> Bool) -> End {
        let start = DispatchTime.now().uptimeNanoseconds
        while !isDone() {
            let beforeYield = DispatchTime.now().uptimeNanoseconds
            guard beforeYield - start < nanoseconds else { return .timedOut }
            sched_yield()
            guard DispatchTime.now().uptimeNanoseconds - beforeYield < yieldLimit else { return .processorBusy }
        }
        return .done
    }
}
