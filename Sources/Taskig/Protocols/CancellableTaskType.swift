import Foundation

/// A task that can be cancelled for good.
///
/// Once cancelled, the task never starts its work again, and anyone waiting for it gets
/// ``CancellableTaskError/taskWasCancelled``. ``ThrowableTask`` and ``Future`` conform.
///
/// This is not how a wait gives up on one run of a task: timeouts, fail-fast collections and
/// races cancel that run only, and the task stays usable (see <doc:CancellingTasks>). Work
/// checks its own run with ``ThrowableTask/isCurrentTaskCancelled``.
public protocol CancellableTaskType {
    /// Whether the task has been cancelled for good.
    var isCancelled: Bool { get }

    /// Cancels the task for good. Cancelling twice is harmless.
    ///
    /// The default implementation does nothing; a type that can stop its work implements it.
    /// Taskig never calls it on its own: waits that give up cancel their run instead.
    func cancel()
}

extension CancellableTaskType {
    /// Does nothing: this type has no way to stop its work early.
    public func cancel() {}
}

/// The error a waiter of a cancelled run receives.
public enum CancellableTaskError: Error, CustomStringConvertible, LocalizedError {
    /// The run was cancelled (or its task cancelled for good) before it produced a result.
    case taskWasCancelled

    /// What happened, and what to do about it.
    public var description: String {
        "CancellableTaskError.taskWasCancelled: the run was cancelled before it produced a result; "
            + "awaiting the task again makes a new run, unless the task was cancelled for good (isCancelled)"
    }

    /// The same text as ``description``, so that `error.localizedDescription`, which most
    /// programs print, explains the failure on every platform.
    public var errorDescription: String? { description }
}
