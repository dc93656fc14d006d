import Dispatch

extension ThrowableTask {
    /// A task whose work is Swift concurrency code: the same as the initializer that also
    /// takes an `executionQueue`, given `.global()`.
    ///
    /// ```swift
    /// let greeting = ThrowableTask<String> { () async throws -> String in "hello" }
    /// ```
    @_disfavoredOverload
    public init(action: @escaping @Sendable () async throws -> T) {
        body = TaskBody(onDefaultQueue: .source(AsyncWork(action: action)))
    }

    /// A task whose work is Swift concurrency code. Each run starts it in a new
    /// `_Concurrency.Task`, which is cancelled when the run is, and which runs on Taskig's
    /// worker threads rather than Swift's cooperative pool, so that blocking waits elsewhere
    /// cannot keep it from starting.
    ///
    /// ```swift
    /// let greeting = ThrowableTask<String> { () async throws -> String in
    ///     try await _Concurrency.Task.sleep(nanoseconds: 1_000_000)
    ///     return "hello"
    /// }
    /// let text = try greeting.await()
    /// ```
    ///
    /// From async code, wait with ``ThrowableTaskType/value``, which suspends, rather than
    /// the blocking ``ThrowableTaskType/await(file:line:)``, which holds a cooperative thread.
    public init(
        executionQueue: DispatchQueue,
        action: @escaping @Sendable () async throws -> T
    ) {
        body = TaskBody(queue: executionQueue, work: .source(AsyncWork(action: action)))
    }
}
