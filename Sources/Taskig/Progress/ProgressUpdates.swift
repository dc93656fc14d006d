import Foundation

/// The one lock under which Taskig changes any `Progress`, in both of its modules.
///
/// `count += n` on a progress is a read and a write, and waits and transfers that share a
/// progress add to it from different threads. One lock for every progress, not one per
/// progress, because setting a child's count also updates its parents, which
/// swift-corelibs-foundation (Linux) does without a lock of its own: two children of one
/// parent must not be updated at the same time either.
@usableFromInline
package enum ProgressUpdates {
    private static let lock = LockedState(())

    /// Adds `count` units to the total of `progress`. An indeterminate total (below zero, as
    /// `Progress(totalUnitCount: -1)` makes) counts as zero: added to, it would leave the
    /// total one short, and the fraction would end past 100%.
    @usableFromInline
    package static func addToTotal(_ count: Int, of progress: Progress) {
        perform { progress.totalUnitCount = max(progress.totalUnitCount, 0) + Int64(count) }
    }

    /// Runs `update`, which changes one or more progresses, while no other update runs.
    @usableFromInline
    package static func perform<Result>(_ update: () throws -> Result) rethrows -> Result {
        try lock.withLock { _ in try update() }
    }
}
