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
    public func start(file: StaticString = #fileID, line: UInt = #line) -> Future<ResultType> {
        startRun(sharesCancellation: true, at: StaticCallSite(file, line))
    }

    /// Starts a run of this task; when `sharesCancellation` is `false`, no copy of the task
    /// is left to cancel it for good, and the run need not listen for that. `site` is where it
    /// was started, which the wait reports name the future by.
    @inlinable
    func startRun(sharesCancellation: Bool, at site: StaticCallSite) -> Future<ResultType> {
        let kind = TaskKind.of(self)
        let body = kind.body
        if let body, body.startsByListening {
            return Future(listeningRunOf: body, sharesCancellation: sharesCancellation, startedAt: site)
        }
        let run = Run(parent: nil, task: sharesCancellation ? body : nil, cancellable: true)
        let watchesHandler = kind.needsHandlerWatched
        // A task's contract lets Taskig start it on any thread, which is all the cell's work does.
        nonisolated(unsafe) let task = self
        let cell = CompletionCell<Result<ResultType, Error>>(work: { complete in
            if kind.isCancelledForGood(task) {
                complete(.failure(CancellableTaskError.taskWasCancelled))
                run.close()
                return
            }
            run.runWorkHandedHere {
                CurrentRun.whileRunning(run) {
                    let completion: @Sendable (Result<ResultType, Error>) -> Void = { outcome in
                        Run.end(run, with: outcome, handingTo: complete)
                    }
                    task.action(completion: watchesHandler ? WatchedHandler.watching(completion, of: task) : completion)
                }
            }
        })
        run.onCancel { cell.complete(with: .failure(CancellableTaskError.taskWasCancelled)) }
        // A future started again only listens to the first one, which never blocks.
        let workQueue = kind.listenedRun != nil ? nil : kind.workQueue(else: executionQueue)
        RunPlacement.of(workQueue, wait: .no).send {
            cell.startIfNeeded()
        }
        return Future(state: FutureState(cell: cell, run: run, workQueue: workQueue, startedAt: site))
    }
}

extension ThrowableTask {
    /// Starts the task now, without waiting, and returns the ``Future`` of its outcome.
    ///
    /// The same as ``ThrowableTaskType/start(file:line:)``, made cheaper when the task is started as it
    /// is made (`future.map { … }.start()`), or from its last copy: with no copy left to
    /// cancel it for good, its run does not listen for that.
    @inlinable
    public consuming func start(file: StaticString = #fileID, line: UInt = #line) -> Future<T> {
        let isLastCopy = isKnownUniquelyReferenced(&body)
        return startRun(sharesCancellation: !isLastCopy, at: StaticCallSite(file, line))
    }
}
