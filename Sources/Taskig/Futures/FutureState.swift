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

    @inlinable
    init(cell: CompletionCell<Result<Value, Error>>, run: Run?, workQueue: WorkQueue? = nil) {
        self.cell = cell
        self.run = run
        self.workQueue = workQueue
    }

    /// Starts the work on this thread unless it has started already.
    @inlinable
    func startIfNeeded() {
        cell.startIfNeeded()
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
