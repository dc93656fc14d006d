import Dispatch

extension Sequence where Element: ThrowableTaskType {
    /// Runs the tasks, at most `concurrency` at once, and returns the value of the first one
    /// to *succeed*.
    ///
    /// Returns as soon as a task succeeds and cancels the others. Fails only when every task
    /// failed, with ``TaskigError/allFailed(_:)`` carrying their errors in input order. No
    /// tasks throw ``TaskigError/emptySequence``.
    ///
    /// ```swift
    /// let config = try [remoteConfig, cachedConfig, bundledConfig].awaitAny()
    /// ```
    @inlinable
    public func awaitAny(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency
    ) throws -> Element.ResultType {
        checkConcurrency(concurrency, of: "awaitAny")
        let tasks = Array(self)
        guard !tasks.isEmpty else { throw TaskigError.emptySequence }
        var winner: Element.ResultType?
        var errors = [Error?](repeating: nil, count: tasks.count)
        let run = BoundedConcurrentRun(
            ThrowingLaneWork<Element>.self,
            tasks: tasks,
            concurrency: concurrency,
            earlyEnd: .when { outcome in
                if case .success = outcome { return true }
                return false
            }
        ) { outcome, index in
            switch outcome {
            case .success(let value):
                winner = value
                return .finishRun
            case .failure(let error):
                errors[index] = error
                return .keepGoing
            }
        }
        run.runAndWait(lanesOn: queue)
        if let winner { return winner }
        throw TaskigError.allFailed(errors.map { $0! })
    }
}
