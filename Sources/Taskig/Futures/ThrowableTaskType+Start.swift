import Dispatch

extension ThrowableTaskType {
    /// Starts the task now, without waiting, and returns the ``Future`` of its outcome.
    ///
    /// The work starts on its `executionQueue` (a task on a global queue starts on one of
    /// Taskig's worker threads). Cancelling the future cancels the task.
    ///
    /// ```swift
    /// let thumbnails = images.map { makeThumbnail($0).start() }   // all running
    /// let first = try thumbnails[0].await()
    /// ```
    public func start() -> Future<ResultType> {
        let cell = TaskRun.cell(for: self)
        let sourceCancellation: CancellationToken
        if let token = (self as? CancellationTokenCarrier)?.cancellationToken {
            sourceCancellation = token
        } else {
            sourceCancellation = CancellationToken()
            // Cancelling a task is allowed from any thread; that is all the handler does.
            nonisolated(unsafe) let cancellable = self as? CancellableTaskType
            if cancellable != nil {
                _ = sourceCancellation.onCancel { cancellable?.cancel() }
            }
        }
        let future = Future(cell: cell, sourceCancellation: sourceCancellation)
        let identity = ObjectIdentifier(cell.state.buffer)
        Scheduling.startSoon(on: executionQueue) {
            _ = RunningWork.whileRunning(identity) { cell.startIfNeeded() }
        }
        return future
    }
}
