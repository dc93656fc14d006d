import Dispatch

extension Sequence where Element: ThrowableTaskType {
    /// Runs the tasks, at most `concurrency` at once, and returns the value of the first one
    /// to *succeed*.
    ///
    /// Returns as soon as a task succeeds and cancels the runs of the others. Fails only when
    /// every task failed, with ``TaskigError/allFailed(_:)`` carrying their errors in input
    /// order. No tasks throw ``TaskigError/emptySequence``.
    ///
    /// ```swift
    /// let config = try [remoteConfig, cachedConfig, bundledConfig].awaitAny()
    /// ```
    @inlinable
    @available(
        *, noasync,
        message: "it blocks the thread; use 'try await ThrowableTask { try tasks.awaitAny() }.value'"
    )
    public func awaitAny(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        file: StaticString = #fileID,
        line: UInt = #line
    ) throws -> Element.ResultType {
        checkConcurrency(concurrency, of: "awaitAny")
        let tasks = Array(self)
        guard !tasks.isEmpty else { throw TaskigError.emptySequence }
        let success = FirstSuccess<Element.ResultType>(count: tasks.count)
        Batch(
            ThrowingLaneWork<Element>.self, tasks: tasks, lanesOn: queue, concurrency: concurrency, sink: success,
            operation: "awaitAny", site: StaticCallSite(file, line)
        ).runAndWait()
        return try success.value()
    }
}
