import Foundation

extension Sequence {
    /// Folds the elements through tasks, one at a time and in order: each step makes a task
    /// from the state so far and the next element, and waits for it. Stops at the first
    /// error, which it throws, and runs nothing after it.
    ///
    /// ```swift
    /// let total = try [1, 2, 3].awaitReduce(0) { sum, n in
    ///     ThrowableTask { sum + n }
    /// }   // 6
    /// ```
    ///
    /// - Parameters:
    ///   - initial: the state before the first step.
    ///   - progress: counts the steps: the fold adds the number of elements to its
    ///     `totalUnitCount` and each step that succeeds to its `completedUnitCount`.
    ///     `progress.cancel()` cancels the step that runs and throws
    ///     ``CancellableTaskError/taskWasCancelled``; a progress cancelled already runs
    ///     nothing.
    ///   - next: makes the task of one step.
    ///   - file: where the wait is called, which errors and wait reports name; leave the default.
    ///   - line: the line of the call, likewise.
    @inlinable
    @available(
        *, noasync,
        message: "it blocks the thread; use 'try await ThrowableTask { try tasks.awaitReduce(...) }.value'"
    )
    public func awaitReduce<State, Step: ThrowableTaskType>(
        _ initial: State,
        progress: Progress? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ next: (State, Element) throws -> Step
    ) throws -> State where Step.ResultType == State {
        guard let progress else {
            var state = initial
            for element in self {
                state = try next(state, element).await(file: file, line: line)
            }
            return state
        }
        if progress.isCancelled { throw CancellableTaskError.taskWasCancelled }
        let elements = Array(self)
        // The steps are children of this run, so cancelling it releases the fold at once.
        let run = Run(parent: CurrentRun.run, cancellable: true)
        ProgressUpdates.addToTotal(elements.count, of: progress)
        let cancellation = ProgressCancellation.install(on: progress) { run.cancel() }
        defer {
            run.close()
            ProgressCancellation.restore(cancellation, on: progress)
        }
        var state = initial
        try CurrentRun.whileRunning(run) {
            for element in elements {
                if run.isCancelled { throw CancellableTaskError.taskWasCancelled }
                state = try next(state, element).await(file: file, line: line)
                ProgressUpdates.perform { progress.completedUnitCount += 1 }
            }
        }
        return state
    }
}
