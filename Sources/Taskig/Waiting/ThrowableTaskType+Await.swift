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
    @available(*, noasync, message: "it blocks the thread; use 'try await task.value'")
    public func awaitResult(file: StaticString = #fileID, line: UInt = #line) -> Result<ResultType, Error> {
        RunWait.outcome(of: self, at: StaticCallSite(file, line))
    }

    /// Runs the task and blocks the calling thread until it finishes, returning its value or
    /// throwing its error.
    ///
    /// Safe on every thread (see ``TaskType/await(file:line:)``). Off the main thread, work on a global
    /// queue runs on the waiting thread; when its run is cancelled meanwhile (the task is
    /// cancelled for good, or the run this wait is nested in is), the work sees it
    /// (``ThrowableTask/isCurrentTaskCancelled``), and the wait throws
    /// ``CancellableTaskError/taskWasCancelled`` once the work returns. A wait that does not run
    /// the work (on the main thread, or on another queue) throws it at once.
    ///
    /// ```swift
    /// let text = try ThrowableTask { try String(contentsOfFile: path, encoding: .utf8) }.await()
    /// ```
    @discardableResult
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'try await task.value'")
    public func await(file: StaticString = #fileID, line: UInt = #line) throws -> ResultType {
        try awaitResult(file: file, line: line).get()
    }

    /// Runs the task and blocks at most `timeout` seconds for it.
    ///
    /// When the time is up it gives up on this run, which is cancelled (its work sees
    /// ``ThrowableTask/isCurrentTaskCancelled``), and throws ``TaskigError/timedOut``. The
    /// task itself stays usable: awaiting it again runs it again. A timeout of zero or less
    /// gives up at once, without starting the work. Work this thread runs itself (a task whose
    /// queue is the caller's own serial queue, or global work awaited on a Taskig worker when no
    /// other worker is free) cannot be left behind: the timeout cancels its run at the deadline
    /// all the same, and the wait throws ``TaskigError/timedOut`` once the work returns.
    ///
    /// ```swift
    /// let page = try fetch(url).await(timeout: 5)
    /// ```
    @discardableResult
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'try await task.timeout(seconds).value'")
    public func await(timeout: TimeInterval, file: StaticString = #fileID, line: UInt = #line) throws -> ResultType {
        try RunWait.outcome(of: self, timeout: timeout, at: StaticCallSite(file, line)).get()
    }

    /// Runs the task on its `executionQueue` without blocking, after `delayBy` seconds, and
    /// calls `completion` with its outcome, on the thread where the work finished.
    ///
    /// A delay of zero or less starts the task at once. The run is independent of the code
    /// that started it: only cancelling the task for good cancels it, which calls
    /// `completion` with ``CancellableTaskError/taskWasCancelled`` at once.
    @inlinable
    public func async(delayBy: TimeInterval = 0, completion: @escaping resultHandler) {
        requireCorrectUse(!delayBy.isNaN, "async(delayBy:) was given NaN; pass a number of seconds")
        if delayBy <= 0, let future = TaskKind.of(self).listenedRun {
            // Listening to a future needs no run of its own: the callback is all there is.
            future.cell.whenComplete(reading: { outcome in
                Scheduling.leavingTimerQueue(
                    deliver: CompletionCell<Result<ResultType, Error>>.read(outcome), to: completion)
            })
            return
        }
        switch RunLaunch.launch(self, parent: nil, releasesOnTaskCancellation: true, start: .unwaited(after: delayBy)) {
        case .finished(let outcome):
            completion(outcome)
        case .pending(let cell, _):
            cell.whenComplete { outcome in Scheduling.leavingTimerQueue(deliver: outcome, to: completion) }
        }
    }

    /// Runs the task on its `executionQueue` without blocking, after `delayBy` seconds, and
    /// ignores its outcome.
    ///
    /// ```swift
    /// ThrowableTask { try cleanTemporaryFiles() }.async()
    /// ThrowableTask<Void> { try sendHeartbeat() }.async(delayBy: 30)
    /// ```
    @inlinable
    public func async(delayBy: TimeInterval = 0) {
        async(delayBy: delayBy) { _ in }
    }

    /// Runs `action` on `executionQueue` and blocks until it returns or throws.
    ///
    /// ```swift
    /// let text = try ThrowableTask<String>.await { "ok" }
    /// ```
    @discardableResult
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'try await ThrowableTask(executionQueue:action:).value'")
    public static func await(
        executionQueue: DispatchQueue = .global(),
        file: StaticString = #fileID,
        line: UInt = #line,
        action: @escaping @Sendable () throws -> ResultType
    ) throws -> ResultType {
        try ThrowableTask(executionQueue: executionQueue, action: action).await(file: file, line: line)
    }
}
