import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one and transforms its value on the main actor: the step runs on
    /// the main queue, as ``map(on:_:)-(DispatchQueue,_)`` with `.main` does, and its closure is `@MainActor`, so
    /// that it may use main-actor-isolated types (views, view models) in Swift 6 mode.
    ///
    /// ```swift
    /// let shown = fetchImage(url).map(on: MainActor.self) { imageView.show($0) }
    /// ```
    ///
    /// Where the step runs follows the main queue's rule: on the main thread, or, under
    /// `dispatchMain()`, on the thread that runs the main queue's blocks ("Waiting safely" in the
    /// documentation). Both are the main actor's.
    @inlinable
    public func map<U: Sendable>(
        on _: MainActor.Type,
        _ transform: @escaping @MainActor @Sendable (ResultType) throws -> U
    ) -> ThrowableTask<U> {
        // A task's value may cross threads: that is what a step does with it.
        composedMap(on: .main) { value in
            nonisolated(unsafe) let value = value
            return try MainActor.assumeIsolated { try transform(value) }
        }
    }
}
