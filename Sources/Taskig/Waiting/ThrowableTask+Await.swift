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
    /// thread, as a ``Task`` does. Outside any other run's work, that run is a plain call of
    /// the task's closure. While another copy exists (whose `cancel()` must release this
    /// waiter at once), or on the main thread (where the work could tell where it runs), it
    /// waits as ``ThrowableTaskType/awaitResult()`` does.
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'try await task.value'")
    public consuming func awaitResult() -> Result<T, Error> {
        let isLastCopy = isKnownUniquelyReferenced(&body)
        if isLastCopy, CurrentRun.slot.pointer == nil, body.queueKind == .globalConcurrent, !MainThread.isCurrent,
            body.isPlainCall
        {
            guard !body.isCancelled else { return .failure(CancellableTaskError.taskWasCancelled) }
            return body.callInPlace()
        }
        return RunWait.outcome(of: self, sharesCancellation: !isLastCopy)
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
    @available(*, noasync, message: "it blocks the thread; use 'try await task.value'")
    public consuming func await() throws -> T {
        try awaitResult().get()
    }
}
