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
/// The looks run on Taskig's timer queue, one thread for every watch; a serial queue, which
/// Dispatch gives a thread even while the global queue's are all blocked. Cancelling the wait
/// runs user code (the handlers and steps of its runs), so the watch that finds the progress
/// cancelled does that on a serial queue of its own, not on the timer queue or a worker.
@usableFromInline
final class ProgressCancellationWatch: Sendable {
    /// The progress and the wait's cancel, until the watch delivers the cancel or the wait
    /// ends. The watch lets go of both then, so that neither is freed by a later look.
    let watched: LockedState<(progress: Progress, cancel: @Sendable () -> Void)?>

    /// Starts watching `progress` for a wait that `cancel` cancels.
    @usableFromInline
    init(_ progress: Progress, cancel: @escaping @Sendable () -> Void) {
        watched = LockedState((progress, cancel))
        lookAgain(after: ProgressTuning.firstProgressCancellationLook)
    }

    /// Stops watching: for the end of the wait.
    @usableFromInline
    func stop() {
        watched.withLock { $0 = nil }
    }

    private func lookAgain(after seconds: Double) {
        Scheduling.after(seconds) { self.look(after: seconds) }
    }

    /// What a look found.
    private enum Finding {
        case stopped
        case notCancelled
        case cancelled(@Sendable () -> Void)
    }

    private func look(after last: Double) {
        let finding = watched.withLock { watched -> Finding in
            guard let (progress, cancel) = watched else { return .stopped }
            guard progress.isCancelled else { return .notCancelled }
            watched = nil
            return .cancelled(cancel)
        }
        switch finding {
        case .stopped: return
        case .notCancelled:
            lookAgain(after: min(2 * last, ProgressTuning.longestTimeBetweenProgressCancellationLooks))
        case .cancelled(let cancel): DispatchQueue(label: "taskig.progress-cancellation").async(execute: cancel)
        }
    }
}
