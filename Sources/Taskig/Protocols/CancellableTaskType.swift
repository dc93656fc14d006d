import Foundation

/// A task that can be cancelled.
///
/// A cancelled task never starts its work, and anyone waiting for it gets
/// ``CancellableTaskError/taskWasCancelled``. ``ThrowableTask`` and ``Future`` conform.
public protocol CancellableTaskType {
    /// Whether the task has been cancelled. Work that is already running can poll this
    /// to stop early.
    var isCancelled: Bool { get }

    /// Cancels the task. Cancelling twice is harmless.
    ///
    /// The default implementation does nothing; a type that can stop its work implements it.
    /// Taskig calls it when a collection wait no longer needs the task (fail-fast, a race that
    /// was won) and when a wait with a timeout gives up.
    func cancel()
}

extension CancellableTaskType {
    /// Does nothing: this type has no way to stop its work early.
    public func cancel() {}
}

/// The error a waiter of a cancelled task receives.
public enum CancellableTaskError: Error, CustomStringConvertible {
    /// The task was cancelled before it produced a result.
    case taskWasCancelled

    /// A readable explanation of the failure.
    public var description: String {
        "CancellableTaskError.taskWasCancelled: the task was cancelled before it produced a result"
    }
}
