import Dispatch

extension Sequence where Element: ThrowableTaskType {
    /// The tasks' outcomes in the order they settle, each with the task's position in the
    /// input, running at most `concurrency` at once.
    ///
    /// Iterating blocks until the next task settles, so each outcome can be acted on as soon as
    /// it exists: a failure is an element, not a thrown error. Leaving the loop early cancels
    /// the runs still going and starts no more tasks. Each iteration runs the tasks again.
    ///
    /// ```swift
    /// for (offset, result) in downloads.completions(concurrency: 8) {
    ///     switch result {
    ///     case .success(let file): print("done:", file)
    ///     case .failure(let error): print("download \(offset) failed:", error)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: where the lanes that run the tasks run; see ``awaitAll(_:concurrency:progress:file:line:)``.
    ///   - concurrency: the most tasks running at once; at least 1.
    ///   - file: where the wait is called, which errors and wait reports name; leave the default.
    ///   - line: the line of the call, likewise.
    @inlinable
    @available(
        *, noasync,
        message: "it blocks the thread at each step; run the loop in 'try await ThrowableTask { ... }.value'"
    )
    public func completions(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> TaskCompletions<Element> {
        checkConcurrency(concurrency, of: "completions")
        return TaskCompletions(
            tasks: Array(self), queue: queue, concurrency: concurrency, site: StaticCallSite(file, line))
    }
}

extension Dictionary where Value: ThrowableTaskType {
    /// The tasks' outcomes in the order they settle, each with its key; see
    /// ``Swift/Sequence/completions(_:concurrency:file:line:)``.
    ///
    /// ```swift
    /// for (name, result) in ["a": sizeOf(a), "b": sizeOf(b)].completions() {
    ///     print(name, result)
    /// }
    /// ```
    @inlinable
    @available(
        *, noasync,
        message: "it blocks the thread at each step; run the loop in 'try await ThrowableTask { ... }.value'"
    )
    public func completions(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> some Sequence<(key: Key, result: Result<Value.ResultType, Error>)> {
        let keys = Array(keys)
        return values.completions(queue, concurrency: concurrency, file: file, line: line).lazy.map { outcome in
            (key: keys[outcome.offset], result: outcome.result)
        }
    }
}
