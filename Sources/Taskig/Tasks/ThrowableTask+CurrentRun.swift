extension ThrowableTask where T == Void {
    /// Whether the run whose work executes on this thread has been cancelled; `false`
    /// outside a run.
    ///
    /// A run is cancelled when a wait gives up on it (a timeout, a failing `awaitAll`, a race
    /// already won, `Future.cancel()`), when the run it was started in is cancelled, or when
    /// its task is cancelled for good. It answers for the synchronous part of a task's work
    /// and for the closures of a composed task; an `async` body uses
    /// `_Concurrency.Task.checkCancellation()` instead.
    ///
    /// ```swift
    /// let sum = ThrowableTask { () -> Int in
    ///     var total = 0
    ///     for chunk in chunks {
    ///         if ThrowableTask.isCurrentTaskCancelled { break }
    ///         total += process(chunk)
    ///     }
    ///     return total
    /// }
    /// ```
    public static var isCurrentTaskCancelled: Bool {
        CurrentRun.isCancelled
    }

    /// Throws ``CancellableTaskError/taskWasCancelled`` when the run whose work executes on
    /// this thread has been cancelled (see ``isCurrentTaskCancelled``).
    ///
    /// ```swift
    /// let report = ThrowableTask { () -> Report in
    ///     var report = Report()
    ///     for section in sections {
    ///         try ThrowableTask.checkCancellation()
    ///         report.add(render(section))
    ///     }
    ///     return report
    /// }
    /// ```
    public static func checkCancellation() throws {
        if isCurrentTaskCancelled { throw CancellableTaskError.taskWasCancelled }
    }

    /// Registers `handler` to run once if the run whose work executes on this thread is
    /// cancelled: at once when it already is, never after that run completed. Outside a run
    /// it does nothing.
    ///
    /// This is how work that goes on elsewhere hears that its run was given up: a task of
    /// your own calls it from `action(completion:)` to stop what it started.
    ///
    /// ```swift
    /// struct Download: ThrowableTaskType {
    ///     let url: URL
    ///     var executionQueue: DispatchQueue { .global() }
    ///     func action(completion: @escaping @Sendable (Result<Data, Error>) -> Void) {
    ///         let request = URLSession.shared.dataTask(with: url) { data, _, error in
    ///             completion(Result { if let error { throw error }; return data ?? Data() })
    ///         }
    ///         ThrowableTask.onCurrentTaskCancelled { request.cancel() }
    ///         request.resume()
    ///     }
    /// }
    /// ```
    ///
    /// The handler runs on the thread that cancels, before that thread goes on: keep it
    /// short, since a handler that blocks holds up whoever cancelled (a timeout, a collection
    /// wait, `Future.cancel()`).
    public static func onCurrentTaskCancelled(_ handler: @escaping @Sendable () -> Void) {
        CurrentRun.run?.onCancel(handler)
    }
}
