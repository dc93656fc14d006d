import Dispatch
import Foundation

/// Looks at `progress.isCancelled` now and then while a wait runs, and cancels the wait when
/// it finds the progress cancelled.
///
/// `progress.cancel()` should reach a wait through the cancellation handler the wait sets
/// (see ``ProgressCancellation``), but on Linux Foundation runs that handler from a global
/// Dispatch queue. A process whose global threads are all blocked gets another one only
/// about once a second, so the handler, and the end of the wait, could come seconds late.
/// The watch looks 10 ms after the wait starts, then twice as far apart each time, and at
/// least every 100 ms: a cancel ends the wait within about that, whatever Dispatch does.
///
/// The watch looks, and cancels, on a serial queue of its own: Dispatch gives such a queue a
/// thread even while the global queue's are all blocked. Part of what runs there is user code
/// (a `Progress` subclass's `isCancelled`, and the handlers and steps that run when the wait's
/// runs are cancelled), so it runs neither on Taskig's timer queue nor on its workers.
@usableFromInline
final class ProgressCancellationWatch: Sendable {
    let progress: Progress
    /// The wait's cancel, until the watch delivers it or the wait ends: the watch then lets go
    /// of what the cancel holds, although its next look still holds the watch.
    let cancel: LockedState<(@Sendable () -> Void)?>
    let queue = DispatchQueue(label: "taskig.progress-cancellation-watch")

    /// How long after the wait starts the watch first looks.
    static var firstLook: Double { 0.01 }

    /// The longest time between two looks, and so about the longest a cancel can take.
    static var longestTimeBetweenLooks: Double { 0.1 }

    /// Starts watching `progress` for a wait that `cancel` cancels.
    @usableFromInline
    init(_ progress: Progress, cancel: @escaping @Sendable () -> Void) {
        self.progress = progress
        self.cancel = LockedState(cancel)
        lookAgain(after: Self.firstLook)
    }

    /// Stops watching: for the end of the wait.
    @usableFromInline
    func stop() {
        cancel.withLock { $0 = nil }
    }

    private func lookAgain(after seconds: Double) {
        queue.asyncAfter(deadline: .now() + seconds) { self.look(after: seconds) }
    }

    private func look(after last: Double) {
        guard cancel.withLock({ $0 != nil }) else { return }
        guard progress.isCancelled else {
            lookAgain(after: min(2 * last, Self.longestTimeBetweenLooks))
            return
        }
        cancel.withLock { $0.take() }?()
    }
}
