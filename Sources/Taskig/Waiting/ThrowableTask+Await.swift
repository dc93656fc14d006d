import Foundation

extension ThrowableTask {
    /// Runs the task and blocks the calling thread until it finishes, returning its outcome.
    ///
    /// The same as ``ThrowableTaskType/awaitResult()``, made quicker for the common case where
    /// the task is awaited as it is made, or from its last copy:
    ///
    /// ```swift
    /// let outcome = ThrowableTask { try parse(text) }.awaitResult()
    /// ```
    ///
    /// With no other copy left, nobody can cancel the task while it runs, so its waiter never
    /// has to leave before the work ends; a task on a global queue then runs on the waiting
    /// thread, as a ``Task`` does, rather than on a Taskig worker. While another copy exists,
    /// or on the main thread (where a worker runs it, so that the main queue stays serviced
    /// even when the work blocks), it waits as ``ThrowableTaskType/awaitResult()`` does.
    @inlinable
    public consuming func awaitResult() -> Result<T, Error> {
        if !MainThread.isCurrent, cancellationToken.isOnlyReference(),
            let outcome = TaskRun.outcomeComputedInPlace(of: self, cancellableWhileRunning: false)
        {
            return outcome
        }
        return awaitResultOfOneRun()
    }

    /// Runs the task and blocks the calling thread until it finishes, returning its value or
    /// throwing its error.
    ///
    /// The same as ``ThrowableTaskType/await()``; like ``awaitResult()``, it runs the work on
    /// the waiting thread when no other copy of the task exists.
    ///
    /// ```swift
    /// let text = try ThrowableTask { try String(contentsOfFile: path, encoding: .utf8) }.await()
    /// ```
    @discardableResult
    @inlinable
    public consuming func await() throws -> T {
        try awaitResult().get()
    }
}
