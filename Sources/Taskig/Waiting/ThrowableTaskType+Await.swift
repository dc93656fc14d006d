import Dispatch
import Foundation

extension ThrowableTaskType {
    /// Runs the task and blocks the calling thread until it finishes, returning its outcome.
    ///
    /// ```swift
    /// if case .failure(let error) = load("missing.txt").awaitResult() {
    ///     print(error)
    /// }
    /// ```
    @inlinable
    public func awaitResult() -> Result<ResultType, Error> {
        awaitResultOfOneRun()
    }

    /// One run of the task, through a ``CompletionCell``, with the waiter free to leave when
    /// the task is cancelled.
    @inlinable
    func awaitResultOfOneRun() -> Result<ResultType, Error> {
        if RunningWork.wouldWaitForItself(self) { return .failure(TaskigError.awaitedFromItsOwnWork) }
        let cell = TaskRun.cell(for: self)
        let release: RunPlacement.EarlyRelease = TaskRun.isCancellableWhileRunning(self) ? .onCancel : .never
        cell.launch(RunPlacement.forTask(self, on: executionQueue, release: release))
        return BlockingWait.value(of: cell)!
    }

    /// Runs the task and blocks the calling thread until it finishes, returning its value or
    /// throwing its error.
    ///
    /// Safe on every thread (see ``TaskType/await()``). When the task is cancelled while
    /// this waits, it throws ``CancellableTaskError/taskWasCancelled`` at once, without
    /// waiting for the work to notice.
    ///
    /// ```swift
    /// let text = try ThrowableTask { try String(contentsOfFile: path, encoding: .utf8) }.await()
    /// ```
    @discardableResult
    @inlinable
    public func await() throws -> ResultType {
        try awaitResult().get()
    }

    /// Runs the task and blocks at most `timeout` seconds for it.
    ///
    /// When the time is up it cancels the task and throws ``TaskigError/timedOut``. A
    /// timeout of zero or less gives up at once: the task is cancelled and never starts. A
    /// task whose queue is the caller's own serial queue runs in place and cannot be
    /// interrupted, so there the timeout only applies to work it hands elsewhere.
    ///
    /// ```swift
    /// let page = try fetch(url).await(timeout: 5)
    /// ```
    @discardableResult
    @inlinable
    public func await(timeout: TimeInterval) throws -> ResultType {
        requireCorrectUse(!timeout.isNaN, "await(timeout:) was given NaN; pass a number of seconds")
        if RunningWork.wouldWaitForItself(self) { throw TaskigError.awaitedFromItsOwnWork }
        let cell = TaskRun.cell(for: self)
        if timeout > 0 {
            cell.launch(RunPlacement.forTask(self, on: executionQueue, release: .atDeadline))
            let deadline = DispatchTime.now() + min(timeout, Scheduling.longestDelay)
            if let result = BlockingWait.value(of: cell, until: deadline) {
                return try result.get()
            }
        }
        if cell.complete(with: .failure(TaskigError.timedOut)) {
            (self as? CancellableTaskType)?.cancel()
        }
        return try cell.completedValue!.get()
    }

    /// Runs the task on its `executionQueue` without blocking, after `delayBy` seconds, and
    /// calls `completion` with its outcome on the thread where the work finished.
    ///
    /// A delay of zero or less starts the task at once. Cancelling the task before it
    /// starts calls `completion` with ``CancellableTaskError/taskWasCancelled``.
    @inlinable
    public func async(delayBy: TimeInterval = 0, completion: @escaping resultHandler) {
        let cell = TaskRun.cell(for: self)
        cell.whenComplete(completion)
        Scheduling.start(cell, on: executionQueue, after: delayBy)
    }

    /// Runs `action` on `executionQueue` and blocks until it returns or throws.
    ///
    /// ```swift
    /// let text = try ThrowableTask<String>.await { "ok" }
    /// ```
    @discardableResult
    @inlinable
    public static func await(
        executionQueue: DispatchQueue = .global(),
        action: @escaping @Sendable () throws -> ResultType
    ) throws -> ResultType {
        try ThrowableTask(executionQueue: executionQueue, action: action).await()
    }
}
