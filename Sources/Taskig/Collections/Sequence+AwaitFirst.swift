import Dispatch

extension Sequence where Element: ThrowableTaskType {
    /// Runs the tasks, at most `concurrency` at once, and returns the outcome of the first
    /// one to finish, success or failure (a race).
    ///
    /// Returns as soon as that task finishes and cancels the runs of the others. No tasks
    /// give `.failure(TaskigError.emptySequence)`.
    ///
    /// ```swift
    /// let fastest = mirrors.map(fetch).awaitFirstResult()
    /// ```
    @inlinable
    @available(
        *, noasync,
        message: "it blocks the thread; use 'try await ThrowableTask { tasks.awaitFirstResult() }.value'"
    )
    public func awaitFirstResult(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> Result<Element.ResultType, Error> {
        checkConcurrency(concurrency, of: "awaitFirstResult")
        let tasks = Array(self)
        guard !tasks.isEmpty else { return .failure(TaskigError.emptySequence) }
        let first = FirstOutcome<Result<Element.ResultType, Error>>(
            cancelled: { .failure(CancellableTaskError.taskWasCancelled) })
        Batch(
            ThrowingLaneWork<Element>.self, tasks: tasks, lanesOn: queue, concurrency: concurrency, sink: first,
            operation: "awaitFirst", site: StaticCallSite(file, line)
        ).runAndWait()
        return first.outcome
    }

    /// Runs the tasks, at most `concurrency` at once, and returns the value of the first one
    /// to finish, or throws its error when it failed (a race).
    ///
    /// Returns as soon as that task finishes and cancels the runs of the others. No tasks
    /// throw ``TaskigError/emptySequence``. To wait for the first *success*, use
    /// ``awaitAny(_:concurrency:file:line:)``.
    ///
    /// ```swift
    /// let page = try mirrors.map(fetch).awaitFirst()
    /// ```
    @inlinable
    @available(
        *, noasync,
        message: "it blocks the thread; use 'try await ThrowableTask { try tasks.awaitFirst() }.value'"
    )
    public func awaitFirst(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        file: StaticString = #fileID,
        line: UInt = #line
    ) throws -> Element.ResultType {
        checkConcurrency(concurrency, of: "awaitFirst")
        return try awaitFirstResult(queue, concurrency: concurrency, file: file, line: line).get()
    }
}

extension Sequence where Element: TaskType {
    /// Runs the tasks, at most `concurrency` at once, and returns the value of the first one
    /// to finish.
    ///
    /// There must be at least one task: an empty collection has no first value, and asking
    /// for it is a programming error.
    ///
    /// ```swift
    /// let first = [slowTask, fastTask].awaitFirst()
    /// ```
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'await Task { tasks.awaitFirst() }.value'")
    public func awaitFirst(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> Element.ResultType {
        checkConcurrency(concurrency, of: "awaitFirst")
        let tasks = Array(self)
        requireCorrectUse(
            !tasks.isEmpty,
            "awaitFirst() was called on an empty collection of tasks, which has no first value; check isEmpty first"
        )
        let first = FirstOutcome<Element.ResultType>(cancelled: nil)
        Batch(
            PlainLaneWork<Element>.self, tasks: tasks, lanesOn: queue, concurrency: concurrency, sink: first,
            operation: "awaitFirst",
            site: StaticCallSite(file, line)
        ).runAndWait()
        return first.outcome
    }
}
