import Foundation

extension ThrowableTask {
    /// Runs the task and blocks the calling thread until it finishes, returning its outcome.
    ///
    /// The same as ``ThrowableTaskType/awaitResult(file:line:)``, made quicker for the common case where
    /// the task is awaited as it is made, or from its last copy:
    ///
    /// ```swift
    /// let outcome = ThrowableTask { try parse(text) }.awaitResult()
    /// ```
    ///
    /// Outside any other run's work and off the main thread, a task on a global queue runs on
    /// the waiting thread with no run object unless its work asks for one, and from its last
    /// copy, which nobody else can cancel, as a plain call of its closure. Otherwise it waits
    /// as ``ThrowableTaskType/awaitResult(file:line:)`` does.
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'try await task.value'")
    public consuming func awaitResult(file: StaticString = #fileID, line: UInt = #line) -> Result<T, Error> {
        let isLastCopy = isKnownUniquelyReferenced(&body)
        if CurrentRun.slot.pointer == nil, body.isPlainCall,
            RunPlacement.of(body.queueKind, queue: body.executionQueue, wait: .untilDone) == .inPlace
        {
            guard !body.isCancelled else { return .failure(CancellableTaskError.taskWasCancelled) }
            if isLastCopy { return body.callInPlace() }
            // Other copies may cancel the run: its work sees the task's cancellation in its frame.
            var frame = RunFrame(parent: nil, task: body)
            let outcome = CurrentRun.whileRunning(&frame) { _ in body.callInPlace() }
            return frame.finishInPlace(outcome, isTaskCancelled: body.isCancelled)
        }
        return RunWait.outcome(of: self, sharesCancellation: !isLastCopy, at: StaticCallSite(file, line))
    }

    /// Runs the task and blocks the calling thread until it finishes, returning its value or
    /// throwing its error.
    ///
    /// The same as ``ThrowableTaskType/await(file:line:)``, quicker when no other copy of the task
    /// exists (see ``awaitResult(file:line:)``).
    ///
    /// ```swift
    /// let text = try ThrowableTask { try String(contentsOfFile: path, encoding: .utf8) }.await()
    /// ```
    @discardableResult
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'try await task.value'")
    public consuming func await(file: StaticString = #fileID, line: UInt = #line) throws -> T {
        try awaitResult(file: file, line: line).get()
    }

    /// Runs the task and blocks at most `timeout` seconds for it.
    ///
    /// The same as ``ThrowableTaskType/await(timeout:file:line:)``, quicker from the task's last copy:
    /// with no other copy left to cancel the task for good, its run need not listen for that.
    ///
    /// ```swift
    /// let page = try ThrowableTask { try fetchPage() }.await(timeout: 5)
    /// ```
    @discardableResult
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'try await task.timeout(seconds).value'")
    public consuming func await(timeout: TimeInterval, file: StaticString = #fileID, line: UInt = #line) throws -> T {
        let isLastCopy = isKnownUniquelyReferenced(&body)
        return try RunWait.outcome(
            of: self, sharesCancellation: !isLastCopy, timeout: timeout, at: StaticCallSite(file, line)
        ).get()
    }
}
