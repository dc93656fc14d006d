import Dispatch

/// The one run behind a ``Future``, shared by every copy of the future: its outcome, the work
/// that produces it, and its ``Run``. A pair of references, copied with the future, so that a
/// future costs no allocation of its own.
///
/// The work is kept in the cell until a thread claims it (see
/// ``CompletionCell/startIfNeeded()``): a waiter that may run the work itself does, if it
/// comes first (see ``RunWait/claimWorkOfFuture(_:start:)``).
@usableFromInline
struct FutureState<Value>: Sendable {
    @usableFromInline
    let cell: CompletionCell<Result<Value, Error>>
    /// The future's run; `nil` for a ``Promise``'s future, which has no work of its own.
    @usableFromInline
    let run: Run?
    /// The queue the work was sent to; `nil` when there is no work to claim (a promise's
    /// future, or one whose run only listens).
    @usableFromInline
    let workQueue: WorkQueue?
    /// Where the future was started, or its promise made: how reports name it.
    @usableFromInline
    let startedAt: StaticCallSite?

    @inlinable
    init(
        cell: CompletionCell<Result<Value, Error>>, run: Run?, workQueue: WorkQueue? = nil, startedAt: StaticCallSite?
    ) {
        self.cell = cell
        self.run = run
        self.workQueue = workQueue
        self.startedAt = startedAt
    }

    /// Starts the work on this thread unless it has started already.
    @inlinable
    func startIfNeeded() {
        cell.startIfNeeded()
    }

    /// Whether the work has started, or the future has its outcome.
    @inlinable
    var hasStarted: Bool {
        cell.hasStarted
    }

    /// What a body that waits for this future keeps of it.
    @inlinable
    var listened: ListenedFuture<Value> {
        ListenedFuture(cell: cell, run: run)
    }

    /// Cancels the future's run, or, for a promise's future, completes it as cancelled.
    /// Returns whether this call decided the outcome.
    @inlinable
    @discardableResult
    func cancel() -> Bool {
        let decided = cell.complete(with: .failure(CancellableTaskError.taskWasCancelled))
        run?.cancel()
        return decided
    }
}

/// What a task body that waits for a future keeps of it (see ``TaskBody/Work/listening(_:)``):
/// its outcome, and its run, which the wait-for cycle check follows. Two references, where a
/// ``FutureState`` also carries what only the future's own waiters and reports use: a body
/// holds its work inline, so the largest kind of work sets the size of every body, and
/// bodies within 120 bytes stay in glibc's fast bins (rows 7 and 10c).
@usableFromInline
struct ListenedFuture<Value>: Sendable {
    @usableFromInline
    let cell: CompletionCell<Result<Value, Error>>
    @usableFromInline
    let run: Run?

    @inlinable
    init(cell: CompletionCell<Result<Value, Error>>, run: Run?) {
        self.cell = cell
        self.run = run
    }
}
