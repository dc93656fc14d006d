import Foundation

/// How a wait hears `progress.cancel()`.
///
/// A `Progress` has one `cancellationHandler`. A wait sets its own while it runs, which calls
/// the one that was there before, and puts that one back when it ends, unless the progress
/// was cancelled: setting a handler on a cancelled progress runs it again.
@usableFromInline
enum ProgressCancellation {
    /// Makes `progress.cancel()` call `cancel`, then the handler the progress had; returns
    /// that handler, for ``restore(_:on:)``.
    @usableFromInline
    static func install(
        on progress: Progress, _ cancel: @escaping @Sendable () -> Void
    ) -> (@Sendable () -> Void)? {
        ProgressUpdates.perform {
            let previous = progress.cancellationHandler
            progress.cancellationHandler = {
                cancel()
                previous?()
            }
            return previous
        }
    }

    /// Gives `progress` back the handler it had before the wait.
    @usableFromInline
    static func restore(_ previous: (@Sendable () -> Void)?, on progress: Progress) {
        ProgressUpdates.perform {
            if !progress.isCancelled { progress.cancellationHandler = previous }
        }
    }
}
