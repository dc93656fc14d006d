import Dispatch
import Foundation

extension TaskType {
    /// Runs the task and blocks the calling thread until it produces its value.
    ///
    /// Safe on every thread: on the main thread the main queue keeps running while it
    /// waits (and work that is not the main queue's runs on a worker), on the task's own
    /// serial queue the work runs in place, and a task on a global queue runs on the waiting
    /// thread instead of a second one.
    ///
    /// ```swift
    /// let sum = Task { (1...10).reduce(0, +) }.await()   // 55
    /// ```
    @discardableResult
    @inlinable
    @available(
        *, noasync,
        message: "it blocks the thread; use 'await task.value' ('try await task.value' for a ThrowableTask)"
    )
    public func await(file: StaticString = #fileID, line: UInt = #line) -> ResultType {
        // The common case, a value-returning `Task` whose waiter may run it, is a plain call;
        // matched here so that the task is not copied on the way.
        if let task = TaskKind.plain(self), case .returning(let produce) = task.work,
            RunPlacement.of(task.executionQueueKind, queue: task.executionQueue, wait: .untilDone) == .inPlace
        {
            return produce()
        }
        switch RunLaunch.launch(self, context: CurrentRun.run) {
        case .finished(let value):
            return value
        case .pending(let cell, let run):
            return BlockingWait.outcome(of: cell) {
                WaitSubject(
                    site: StaticCallSite(file, line), target: run,
                    work: .task(type: Self.self, queue: WorkQueue(executionQueue), startedAt: nil))
            }.valueOrStop("await() of a \(Self.self)")
        }
    }

    /// Runs the task and blocks at most `timeout` seconds for its value.
    ///
    /// When the time is up it gives up on this run and throws ``TaskigError/timedOut``. A
    /// task that cannot fail cannot be stopped either: its work runs to its end on its own
    /// (work that checks ``ThrowableTask/isCurrentTaskCancelled`` sees the run cancelled). A
    /// timeout of zero or less gives up at once, without starting the work, and work this
    /// thread runs itself ends before the wait throws, as with
    /// ``ThrowableTaskType/await(timeout:file:line:)``.
    ///
    /// ```swift
    /// let answer = try Task { slowComputation() }.await(timeout: 2)
    /// ```
    @discardableResult
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'try await task.throwableTask.timeout(seconds).value'")
    public func await(timeout: TimeInterval, file: StaticString = #fileID, line: UInt = #line) throws -> ResultType {
        try throwableTask.await(timeout: timeout, file: file, line: line)
    }

    /// Runs the task on its `executionQueue` without blocking, after `delayBy` seconds, and
    /// calls `completion` with its value on the thread where the work finished.
    ///
    /// A delay of zero or less starts the task at once.
    @inlinable
    public func async(delayBy: TimeInterval = 0, completion: @escaping resultHandler) {
        requireCorrectUse(!delayBy.isNaN, "async(delayBy:) was given NaN; pass a number of seconds")
        switch RunLaunch.launch(self, context: nil, start: .unwaited(after: delayBy)) {
        case .finished(let value):
            completion(value)
        case .pending(let cell, _):
            cell.whenComplete { value in Scheduling.leavingTimerQueue(deliver: value, to: completion) }
        }
    }

    /// Runs the task on its `executionQueue` without blocking, after `delayBy` seconds, and
    /// ignores its value.
    @inlinable
    public func async(delayBy: TimeInterval = 0) {
        async(delayBy: delayBy) { _ in }
    }

    /// Runs `action` on `executionQueue` and blocks until it returns its value.
    ///
    /// ```swift
    /// let answer = Task<Int>.await { 42 }
    /// let onMain = Task<Bool>.await(executionQueue: .main) { Thread.isMainThread }
    /// ```
    @discardableResult
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'await Task(executionQueue:action:).value'")
    public static func await(
        executionQueue: DispatchQueue = .global(),
        file: StaticString = #fileID,
        line: UInt = #line,
        action: @escaping @Sendable () -> ResultType
    ) -> ResultType {
        Task(executionQueue: executionQueue, action: action).await(file: file, line: line)
    }

    /// The same work as a ``ThrowableTask`` that never fails, for APIs that take one.
    @inlinable
    public var throwableTask: ThrowableTask<ResultType> {
        // The protocol's contract is that `action(completion:)` may be called on another
        // thread (the execution queue's), which is all this closure does with it.
        nonisolated(unsafe) let action = self.action(completion:)
        return ThrowableTask(executionQueue: executionQueue) { completion in
            action { completion(.success($0)) }
        }
    }
}
