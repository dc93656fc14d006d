import Dispatch
import Foundation
import Synchronization

/// Reports a collection wait to a Foundation `Progress`: the number of tasks to its
/// `totalUnitCount` when the wait starts, the tasks that settled to its `completedUnitCount`
/// while it runs, and `progress.cancel()` back to the wait.
///
/// Setting a count on a `Progress` costs about as much as running a trivial task, so lanes do
/// not set it per task. The first task to settle publishes at once; then the counts are
/// published at most every ``CollectionTuning/progressPublishingInterval`` while they change, and once more, exactly,
/// when the wait ends. A slow batch so shows every task as it settles, and a fast one shows a
/// count that rises smoothly without slowing its lanes.
///
/// `progress.cancel()` reaches the wait through ``ProgressCancellation``.
@usableFromInline
final class BatchProgress: Sendable {
    @usableFromInline
    let progress: Progress
    /// Whether a publication is scheduled: lanes read it on every task, so that most of
    /// them publish nothing.
    @usableFromInline
    let isCoolingDown = Atomic(false)
    @usableFromInline
    let state: LockedState<State>

    @usableFromInline
    struct State {
        /// How many settled tasks the progress has been told about.
        @usableFromInline
        var published = 0
        /// Counts the tasks settled so far; `nil` once the wait has ended.
        @usableFromInline
        var countSettled: (@Sendable () -> Int)?
        /// How the wait listens for `progress.cancel()`; `nil` once it no longer does.
        @usableFromInline
        var cancellation: ProgressCancellation.Installed?

        @inlinable
        init() {}
    }

    @inlinable
    init(_ progress: Progress) {
        self.progress = progress
        state = LockedState(State())
    }

    /// Adds `taskCount` tasks to the total and makes `progress.cancel()` call `cancel`.
    /// `countSettled` says how many tasks settled so far; it is called under this reporter's
    /// lock, never after ``finish()``.
    @usableFromInline
    func begin(
        taskCount: Int, countSettled: @escaping @Sendable () -> Int, cancel: @escaping @Sendable () -> Void
    ) {
        state.withLock { $0.countSettled = countSettled }
        ProgressUpdates.addToTotal(taskCount, of: progress)
        let cancellation = ProgressCancellation.install(on: progress, cancel)
        state.withLock { $0.cancellation = cancellation }
    }

    /// Called by a lane after each task it settles.
    @inlinable
    func taskSettled() {
        if !isCoolingDown.load(ordering: .relaxed) { publishAndCoolDown() }
    }

    @usableFromInline
    func publishAndCoolDown() {
        guard !isCoolingDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        publish()
        Scheduling.after(ProgressTuning.progressPublishingInterval) { self.endCoolDown() }
    }

    /// Publishes what settled since the last publication; cools down once more if something
    /// did, and otherwise lets the next task to settle publish at once.
    @usableFromInline
    func endCoolDown() {
        if publish() {
            Scheduling.after(ProgressTuning.progressPublishingInterval) { self.endCoolDown() }
            return
        }
        isCoolingDown.store(false, ordering: .sequentiallyConsistent)
        // A task that settled after the publication above saw the cool-down and left it to us.
        let isBehind = state.withLock { state in
            state.countSettled.map { $0() > state.published } ?? false
        }
        if isBehind { publishAndCoolDown() }
    }

    /// Sets the completed count to what settled; returns whether it changed. The change is
    /// queued under the lock, so that changes reach the progress in the order they were counted,
    /// and applied outside it (see ``ProgressUpdates``): an observer of the progress may call
    /// back into Taskig.
    @usableFromInline
    @discardableResult
    func publish() -> Bool {
        let changed = state.withLock { state in
            guard let settled = state.countSettled?(), settled > state.published else { return false }
            let change = Int64(settled - state.published)
            ProgressUpdates.enqueue { [progress] in progress.completedUnitCount += change }
            state.published = settled
            return true
        }
        if changed { ProgressUpdates.applyQueued() }
        return changed
    }

    /// Publishes the final count, and returns once it is applied, with every change before it;
    /// stops publishing, and gives the progress its own cancellation handler back.
    @usableFromInline
    func finish() {
        publish()
        ProgressUpdates.perform {}
        let cancellation = state.withLock { state in
            state.countSettled = nil
            return state.cancellation.take()
        }
        if let cancellation { ProgressCancellation.restore(cancellation, on: progress) }
    }
}
