import Dispatch

extension ThrowableTaskType {
    /// The task's value, from Swift concurrency: `try await task.value`.
    ///
    /// Runs the task and suspends until it finishes, without blocking a thread of Swift's
    /// cooperative pool (the work runs on its queue, or on a Taskig worker for a global
    /// queue). Cancelling the calling Swift task cancels this task and throws
    /// ``CancellableTaskError/taskWasCancelled``.
    ///
    /// ```swift
    /// func refresh() async throws -> [Item] {
    ///     try await loadItems().value
    /// }
    /// ```
    public var value: ResultType {
        get async throws {
            if RunningWork.wouldWaitForItself(self) { throw TaskigError.awaitedFromItsOwnWork }
            let run = TaskRun.cell(for: self)
            // Cancelling is allowed from any thread; the handler does nothing else with it.
            nonisolated(unsafe) let cancellable = self as? CancellableTaskType
            let queue = executionQueue
            // The continuation only signals; the outcome stays in the run, which hands it out.
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    run.whenComplete { _ in continuation.resume() }
                    Scheduling.startSoon(on: queue) { run.startIfNeeded() }
                }
            } onCancel: {
                if run.complete(with: .failure(CancellableTaskError.taskWasCancelled)) {
                    cancellable?.cancel()
                }
            }
            return try run.completedValue!.get()
        }
    }
}

extension TaskType {
    /// The task's value, from Swift concurrency: `await task.value`.
    ///
    /// Runs the task and suspends until it finishes, without blocking a thread of Swift's
    /// cooperative pool. A `TaskType` cannot be cancelled, so this waits for the value even
    /// when the calling Swift task is cancelled.
    ///
    /// ```swift
    /// let checksum = await Task { computeChecksum(file) }.value
    /// ```
    public var value: ResultType {
        get async {
            let run = TaskRun.cell(for: self)
            let queue = executionQueue
            await withCheckedContinuation { continuation in
                run.whenComplete { _ in continuation.resume() }
                Scheduling.startSoon(on: queue) { run.startIfNeeded() }
            }
            return run.completedValue!
        }
    }
}
