import Foundation

/// How a wait hears `progress.cancel()`.
///
/// A `Progress` has one `cancellationHandler`. A wait sets its own while it runs, which calls
/// the one that was there before, and puts that one back when it ends, unless the progress
/// was cancelled: setting a handler on a cancelled progress runs it again. A
/// ``ProgressCancellationWatch`` also looks at the progress meanwhile, for when Foundation's
/// call of the handler comes late.
@usableFromInline
enum ProgressCancellation {
    /// What ``restore(_:on:)`` needs: the handler the progress had, and the watch.
    @usableFromInline
    struct Installed: Sendable {
        @usableFromInline
        let previousHandler: (@Sendable () -> Void)?
        @usableFromInline
        let watch: ProgressCancellationWatch
    }

    /// Makes `progress.cancel()` call `cancel`, then the handler the progress had. `cancel`
    /// may be called more than once.
    @usableFromInline
    static func install(on progress: Progress, _ cancel: @escaping @Sendable () -> Void) -> Installed {
        let previous = ProgressUpdates.perform {
            let previous = progress.cancellationHandler
            progress.cancellationHandler = {
                cancel()
                previous?()
            }
            return previous
        }
        return Installed(previousHandler: previous, watch: ProgressCancellationWatch(progress, cancel: cancel))
    }

    /// Stops listening for `progress.cancel()`, and gives `progress` back the handler it had
    /// before the wait.
    @usableFromInline
    static func restore(_ installed: Installed, on progress: Progress) {
        installed.watch.stop()
        ProgressUpdates.perform {
            if !progress.isCancelled { progress.cancellationHandler = installed.previousHandler }
        }
    }
}
