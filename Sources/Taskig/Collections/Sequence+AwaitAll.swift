import Dispatch

extension Sequence where Element: ThrowableTaskType {
    /// Runs every task, at most `concurrency` at once, and returns their values in input
    /// order.
    ///
    /// Fails fast: the first failure is thrown as soon as it is known, no further task is
    /// started, and the tasks still running are cancelled. `concurrency: 1` runs the tasks
    /// one after the other, in order. `Optional` values are kept as they are.
    ///
    /// ```swift
    /// let pages = try urls.map(fetch).awaitAll(concurrency: 8)
    /// ```
    ///
    /// - Parameters:
    ///   - queue: where the waiting lanes run. The default runs them on Taskig's own
    ///     threads, so tasks that block cannot starve Dispatch's global pool; a serial
    ///     queue you are already on runs them in place.
    ///   - concurrency: the most tasks running at once; at least 1.
    @inlinable
    public func awaitAll(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency
    ) throws -> [Element.ResultType] {
        checkConcurrency(concurrency, of: "awaitAll")
        let tasks = Array(self)
        var failure: Error?
        let values = IndexedResults.build(count: tasks.count) {
            (buffer: UnsafeMutableBufferPointer<Element.ResultType>) in
            var written = InitializedIndexSet(count: tasks.count, of: Element.ResultType.self)
            let run = BoundedConcurrentRun(
                ThrowingLaneWork<Element>.self,
                tasks: tasks,
                concurrency: concurrency,
                earlyEnd: .when { outcome in
                    if case .failure = outcome { return true }
                    return false
                },
                settle: { outcome, index in
                    switch outcome {
                    case .success(let value):
                        (buffer.baseAddress! + index).initialize(to: value)
                        written.insert(index)
                        return .keepGoing
                    case .failure(let error):
                        failure = error
                        return .finishRun
                    }
                }
            )
            run.runAndWait(lanesOn: queue)
            return failure == nil ? .complete : .incomplete(written: written)
        }
        if let failure { throw failure }
        return values!
    }

    /// Runs every task, at most `concurrency` at once, lets every one of them settle, and
    /// returns their outcomes in input order.
    ///
    /// ```swift
    /// for case .failure(let error) in uploads.awaitAllResults() {
    ///     print("one upload failed:", error)
    /// }
    /// ```
    @inlinable
    public func awaitAllResults(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency
    ) -> [Result<Element.ResultType, Error>] {
        checkConcurrency(concurrency, of: "awaitAllResults")
        let tasks = Array(self)
        let results = IndexedResults.build(count: tasks.count) {
            (buffer: UnsafeMutableBufferPointer<Result<Element.ResultType, Error>>) in
            let run = BoundedConcurrentRun(
                ThrowingLaneWork<Element>.self,
                tasks: tasks,
                concurrency: concurrency,
                earlyEnd: .never,
                settle: { outcome, index in
                    (buffer.baseAddress! + index).initialize(to: outcome)
                    return .keepGoing
                }
            )
            run.runAndWait(lanesOn: queue)
            return .complete
        }
        return results!
    }
}

extension Sequence where Element: TaskType {
    /// Runs every task, at most `concurrency` at once, and returns their values in input
    /// order.
    ///
    /// ```swift
    /// let squares = (1...10).map { n in Task { n * n } }.awaitAll()
    /// ```
    @inlinable
    public func awaitAll(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency
    ) -> [Element.ResultType] {
        checkConcurrency(concurrency, of: "awaitAll")
        let tasks = Array(self)
        let values = IndexedResults.build(count: tasks.count) {
            (buffer: UnsafeMutableBufferPointer<Element.ResultType>) in
            let run = BoundedConcurrentRun(
                PlainLaneWork<Element>.self,
                tasks: tasks,
                concurrency: concurrency,
                earlyEnd: .never,
                settle: { value, index in
                    (buffer.baseAddress! + index).initialize(to: value)
                    return .keepGoing
                }
            )
            run.runAndWait(lanesOn: queue)
            return .complete
        }
        return values!
    }
}
