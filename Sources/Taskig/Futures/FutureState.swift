import Dispatch

/// The one run behind a ``Future``, shared by every copy of the future: its outcome, the work
/// that produces it, and its ``Run``. A pair of references, copied with the future, so that a
/// future costs no allocation of its own.
///
/// The work is kept in the cell until a thread claims it (see
/// ``CompletionCell/startIfNeeded()``): a waiter whose wait would keep the work from ever
/// starting runs it itself (see ``RunWait/helpStart(of:hasDeadline:)``).
@usableFromInline
struct FutureState<Value>: Sendable {
    @usableFromInline
    let cell: CompletionCell<Result<Value, Error>>
    /// The future's run; `nil` for a ``Promise``'s future, which has no work of its own.
    @usableFromInline
    let run: Run?
    /// The queue the work was sent to when it is not a global one: only code on that queue
    /// may start it in place.
    @usableFromInline
    let workQueue: (queue: DispatchQueue, kind: QueueAffinity.Kind)?

    @inlinable
    init(
        cell: CompletionCell<Result<Value, Error>>, run: Run?,
        workQueue: (queue: DispatchQueue, kind: QueueAffinity.Kind)? = nil
    ) {
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
