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
    @inlinable
    public func awaitReduce<State, Step: ThrowableTaskType>(
        _ initial: State,
        _ next: (State, Element) throws -> Step
    ) throws -> State where Step.ResultType == State {
        var state = initial
        for element in self {
            state = try next(state, element).await()
        }
        return state
    }
}
