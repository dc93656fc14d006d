import Dispatch

extension ThrowableTaskType {
    /// Starts the task now, without waiting, and returns the ``Future`` of its outcome.
    ///
    /// The start makes one run, independent of the code that calls it: cancelling the future
    /// cancels that run, and cancelling the task for good cancels it too. The work starts on
    /// its `executionQueue` (a task on a global queue starts on one of Taskig's worker
    /// threads); a composed task that begins with a future (`future.map { … }.start()`) only
    /// registers its first step, which then runs where the future completes.
    ///
    /// ```swift
    /// let thumbnails = images.map { makeThumbnail($0).start() }   // all running
    /// let first = try thumbnails[0].await()
    /// ```
    @inlinable
    public func start() -> Future<ResultType> {
        let body = (self as? ThrowableTask<ResultType>)?.body
        let run = Run(parent: nil, task: body, cancellable: true)
        // A task's contract lets Taskig start it on any thread, which is all the cell's work does.
        nonisolated(unsafe) let task = self
        let cell = CompletionCell<Result<ResultType, Error>>(work: { complete in
            if body?.isCancelled ?? (task as? CancellableTaskType)?.isCancelled ?? false {
                complete(.failure(CancellableTaskError.taskWasCancelled))
                run.close()
                return
            }
            CurrentRun.whileRunning(run) {
                task.action { outcome in
                    complete(outcome)
                    run.close()
                }
            }
        })
        run.onCancel { cell.complete(with: .failure(CancellableTaskError.taskWasCancelled)) }
        if body?.onlyListens ?? (self is ListeningTask) {
            cell.startIfNeeded()
        } else {
            let kind = body?.queueKind ?? QueueAffinity.kind(of: executionQueue)
            RunPlacement.away(of: kind, on: body?.queue ?? executionQueue).send { cell.startIfNeeded() }
        }
        return Future(state: FutureState(cell: cell, run: run))
    }
}
