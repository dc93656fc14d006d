/// The one run behind a ``Future``, shared by every copy of the future: its outcome, the work
/// that produces it, and its ``Run``. A pair of references, copied with the future, so that a
/// future costs no allocation of its own.
///
/// The work is kept in the cell until a thread claims it (see
/// ``CompletionCell/startIfNeeded()``): a worker that waits for a future whose work is still
/// waiting for a thread runs it itself (see ``RunWait/helpStart(of:)``).
@usableFromInline
struct FutureState<Value>: Sendable {
    @usableFromInline
    let cell: CompletionCell<Result<Value, Error>>
    /// The future's run; `nil` for a ``Promise``'s future, which has no work of its own.
    @usableFromInline
    let run: Run?

    @inlinable
    init(cell: CompletionCell<Result<Value, Error>>, run: Run?) {
        self.cell = cell
        self.run = run
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
