import Foundation

/// The failures Taskig itself reports, as opposed to errors thrown by the work inside a task.
///
/// Match a case with pattern matching:
///
/// ```swift
/// do {
///     try slowTask.await(timeout: 0.5)
/// } catch TaskigError.timedOut {
///     print("gave up")
/// }
/// ```
public enum TaskigError: Error, CustomStringConvertible, LocalizedError {
    /// `awaitFirst`, `awaitFirstResult` or `awaitAny` was given no tasks, so there is no first result.
    case emptySequence
    /// A wait with a timeout gave up before the task finished. Its run was cancelled; the task
    /// was not, and can be awaited again.
    case timedOut
    /// `awaitAny` found no task that succeeded. Carries every task's error, in input order.
    case allFailed([Error])
    /// A task was awaited from inside its own work (a continuation waiting for the very task
    /// it belongs to, or a future's work waiting for that future), which could never end.
    case awaitedFromItsOwnWork

    /// What happened, and what to do about it.
    public var description: String {
        switch self {
        case .emptySequence:
            return "TaskigError.emptySequence: there were no tasks to wait for, so there is no first result; "
                + "check isEmpty before the wait"
        case .timedOut:
            return "TaskigError.timedOut: the task did not finish before the timeout, and its run was cancelled; "
                + "allow more time, or retry: the task itself can be awaited again"
        case .awaitedFromItsOwnWork:
            return "TaskigError.awaitedFromItsOwnWork: a task was awaited from inside its own work, "
                + "which would wait forever; await it from outside, or use its value directly"
        case .allFailed(let errors):
            return "TaskigError.allFailed: all \(errors.count) tasks failed; first error: "
                + (errors.first.map { String(describing: $0) } ?? "none")
                + "; catch TaskigError.allFailed(let errors) for every task's error"
        }
    }

    /// The same text as ``description``, so that `error.localizedDescription`, which most
    /// programs print, explains the failure on every platform.
    public var errorDescription: String? { description }
}
