import Foundation

/// How Taskig changes any Foundation `Progress`, in both of its modules: one update at a time,
/// in the order they were made, and never under one of Taskig's locks.
///
/// - **One at a time.** `count += n` on a progress is a read and a write, and waits and
///   transfers that share a progress add to it from different threads. Setting a child's count
///   also updates its parents, which swift-corelibs-foundation (Linux) does without a lock of
///   its own, so two children of one parent must not be updated at the same time either: all
///   updates, of every progress, take turns.
/// - **Outside every lock.** A progress calls its observers synchronously as it changes (KVO
///   on Darwin: SwiftUI's `ProgressView`, `observe(_:)`, a parent's fraction), and an observer
///   may call back into Taskig: cancel, start another wait, `DispatchQueue.main.sync`. So the
///   updates are queued, under a lock, and applied outside it by one thread at a time, the
///   applier: whoever finds no other applying. A thread that finds another applying leaves
///   its update to it, or, in ``perform(_:)``, waits for it as any Taskig wait does (the main
///   thread keeps its main queue running meanwhile).
/// - **In order, and before the wait returns.** A wait's last update goes through
///   ``perform(_:)``, which returns once every update queued before it, and it, are applied,
///   and their observers have returned. An update made by an observer, on the applier's
///   thread, is applied at once, after the queued ones that nobody waits for (a lane's counts):
///   so a wait that an observer starts also returns with its counts applied.
///
/// One wait remains that cannot end: an observer that waits for another thread which itself
/// waits in ``perform(_:)`` (it starts or ends a wait with a progress) while the observer's
/// update is being applied. Changes of different progresses take turns too, since Foundation
/// gives no way to tell which share a parent.
@usableFromInline
package enum ProgressUpdates {
    /// A change to one or more progresses.
    @usableFromInline
    typealias Update = @Sendable () -> Void

    private struct State {
        /// The queued updates, first in first out; an awaited one is a ``perform(_:)`` whose
        /// caller waits for it, which only the applier's outermost loop applies (see
        /// ``applyAll()``). The queue holds about as many updates as threads publish at once.
        var pending: [(update: Update, isAwaited: Bool)] = []
        var isApplying = false

        mutating func popFirst() -> Update? {
            pending.isEmpty ? nil : pending.removeFirst().update
        }

        mutating func popFirstNotAwaited() -> Update? {
            guard let index = pending.firstIndex(where: { !$0.isAwaited }) else { return nil }
            return pending.remove(at: index).update
        }
    }

    private static let state = LockedState(State())
    /// Where updates that a timer queued are applied: a serial queue of Dispatch's, which gets a
    /// thread at once, as the timer queue does. Not Taskig's workers: while their work blocks
    /// every one of them, every progress in the process would wait for one.
    private static let applierQueue = DispatchQueue(label: "taskig.progress")
    /// Set on the applier's thread while it applies updates.
    private static let applier = ThreadLocalSlot()

    /// Adds `count` units to the total of `progress`, and returns once done. An indeterminate
    /// total (below zero, as `Progress(totalUnitCount: -1)` makes) counts as zero: added to, it
    /// would leave the total one short, and the fraction would end past 100%.
    @usableFromInline
    package static func addToTotal(_ count: Int, of progress: Progress) {
        perform { progress.totalUnitCount = max(progress.totalUnitCount, 0) + Int64(count) }
    }

    /// Sets the total of `progress` to `total`, from inside an update, on every platform:
    /// swift-corelibs-foundation traps when a positive total is set to zero (see
    /// ``Platform/progressTrapsOnATotalSetToZero``), and rescales nothing when the old total is
    /// negative, so such a change steps through -1 there.
    package static func setTotal(_ total: Int64, of progress: Progress) {
        if Platform.progressTrapsOnATotalSetToZero && total == 0 && progress.totalUnitCount > 0 {
            progress.totalUnitCount = -1
        }
        progress.totalUnitCount = total
    }

    /// Queues `update` behind the updates queued before it, without applying anything: it may
    /// be called under a lock. Whoever calls it calls ``applyQueued()`` once outside its locks.
    @usableFromInline
    static func enqueue(_ update: @escaping Update) {
        state.withLock { $0.pending.append((update, false)) }
    }

    /// Applies the queued updates, unless another thread applies them already: then it returns
    /// at once, leaving them to that thread. Never called under a lock. Taskig's timer queue
    /// leaves them to ``applierQueue``, since observers are user code.
    @usableFromInline
    static func applyQueued() {
        if applier.pointer != nil {
            applyAll()
            return
        }
        guard state.withLock({ !$0.pending.isEmpty && !$0.isApplying ? claimApplying(&$0) : false }) else {
            return
        }
        if Scheduling.isOnTimerQueue {
            applierQueue.async { applyAllAndStopApplying() }
        } else {
            applyAllAndStopApplying()
        }
    }

    /// Applies `update` after every update queued before it, outside Taskig's locks, and returns
    /// its result once it has been applied.
    @usableFromInline
    package static func perform<Result>(_ update: () -> Result) -> Result {
        if applier.pointer != nil {
            // An observer's update, on the applier's thread: the queued ones first, then this.
            applyAll()
            return update()
        }
        if state.withLock({ $0.pending.isEmpty && !$0.isApplying ? claimApplying(&$0) : false }) {
            return applyAllAndStopApplying(after: update)
        }
        return withoutActuallyEscaping(update) { update in
            let pending = PendingUpdate(update)
            state.withLock { $0.pending.append(({ pending.apply() }, true)) }
            applyQueued()
            return pending.result()
        }
    }

    /// Makes the caller the applier; under the lock.
    private static func claimApplying(_ state: inout State) -> Bool {
        state.isApplying = true
        return true
    }

    /// Applies `first`, then every queued update on this thread, the applier's, including those
    /// queued while it does, then stops being the applier; returns what `first` returned.
    private static func applyAllAndStopApplying<Result>(after first: () -> Result = {}) -> Result {
        applier.pointer = UnsafeMutableRawPointer(bitPattern: 1)
        defer { applier.pointer = nil }
        let result = first()
        while let update = state.withLock({ state -> Update? in
            if let update = state.popFirst() { return update }
            state.isApplying = false
            return nil
        }) {
            update()
        }
        return result
    }

    /// Applies the queued updates on this thread, already the applier's, from inside an update
    /// (an observer's): all but those whose callers wait for them, which see them applied only
    /// once the update they were queued behind has returned, with its observers.
    private static func applyAll() {
        while let update = state.withLock({ $0.popFirstNotAwaited() }) { update() }
    }

    /// An update that its caller waits for, with the result it gave. The caller's closure need
    /// not escape: the caller returns only once the applier has run it.
    ///
    /// `@unchecked Sendable`: `update` and `outcome` are used by the applier before it completes
    /// `done`, and `outcome` is read by the caller after `done` completed, whose lock orders the
    /// two.
    private final class PendingUpdate<Result>: @unchecked Sendable {
        /// Let go of once run: the caller's closure must not outlive its call.
        private var update: (() -> Result)?
        private var outcome: Result?
        private let done = CompletionCell<Void>()

        init(_ update: @escaping () -> Result) {
            self.update = update
        }

        func apply() {
            outcome = update.take()?()
            done.complete(with: ())
        }

        /// The update's result, once the applier has run it.
        func result() -> Result {
            // No edge of the wait-for graph: the applier ends it, whatever it waits for.
            BlockingWait.value(of: done) {
                WaitSubject(
                    site: StaticCallSite(#fileID, #line), target: nil,
                    work: .task(type: Progress.self, queue: nil, startedAt: nil))
            }
            return outcome!
        }
    }
}
