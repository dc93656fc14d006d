import Dispatch

extension ThrowableTaskType {
    /// The task's value, from Swift concurrency: `try await task.value`.
    ///
    /// Runs the task and suspends until it finishes, without blocking a thread of Swift's
    /// cooperative pool (the work runs on its queue, or on a Taskig worker for a global
    /// queue). The run is independent of any Taskig run; cancelling the calling Swift task
    /// cancels it and throws ``CancellableTaskError/taskWasCancelled`` at once. The task itself
    /// stays usable.
    ///
    /// ```swift
    /// func refresh() async throws -> [Item] {
    ///     try await loadItems().value
    /// }
    /// ```
    public var value: ResultType {
        get async throws {
            switch RunLaunch.launch(self, parent: nil, mayGiveUp: true, start: .unwaited(after: 0)) {
            case .finished(let outcome):
                return try outcome.get()
            case .pending(let cell, let run):
                // The continuation only signals; the outcome stays in the cell, which hands it out.
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        cell.whenComplete(reading: { _ in continuation.resume() })
                    }
                } onCancel: {
                    run?.cancel()
                }
                return try cell.completedValue!.get()
            }
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
            switch RunLaunch.launch(self, context: nil, start: .unwaited(after: 0)) {
            case .finished(let value):
                return value
            case .pending(let cell, _):
                await withCheckedContinuation { continuation in
                    cell.whenComplete(reading: { _ in continuation.resume() })
                }
                return cell.completedValue!
            }
        }
    }
}
