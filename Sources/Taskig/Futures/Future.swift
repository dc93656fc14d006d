import Dispatch

/// The eventual outcome of work that has already started: hot and memoized.
///
/// Every waiter sees the same outcome, as often as it asks, including waiters that arrive
/// after it is known. A future comes from ``ThrowableTaskType/start(file:line:)`` or from a
/// ``Promise``.
///
/// ```swift
/// let report = buildReport.start()      // starts now
/// doOtherWork()
/// let text = try report.await()         // waits only if it is not done yet
/// let again = try report.await()        // the same value, at once
/// ```
///
/// A future is one shared run: ``cancel()`` cancels it for every waiter, while a waiter that
/// gives up (`await(timeout:)`, a race it lost) gives up only its own wait. A future is a
/// ``ThrowableTaskType``, so it composes (`map`, `flatMap`, …) and joins the collection
/// waits; a continuation registered on a future runs on the thread that completes it, at once
/// when it is already complete. Waiting for a future from inside its own work fails with
/// ``TaskigError/awaitedFromItsOwnWork`` instead of waiting forever.
public struct Future<T>: ThrowableTaskType, CancellableTaskType, Sendable {
    @usableFromInline
    let state: FutureState<T>

    @inlinable
    init(state: FutureState<T>) {
        self.state = state
    }

    /// The future of a run of `body`, whose work begins by listening to another future: the
    /// run starts here, on this thread, since starting it only registers a callback. A
    /// continuation of a future that is already complete runs before this returns, or, when a
    /// chain's step called this, once that step's loop has ended (see
    /// ``ChainRun/start(_:finishing:)``). See ``ThrowableTaskType/startRun(sharesCancellation:at:)``.
    @inlinable
    init(listeningRunOf body: TaskBody<T>, sharesCancellation: Bool, startedAt site: StaticCallSite) {
        let run = Run(parent: nil, task: sharesCancellation ? body : nil, cancellable: true)
        let cell = CompletionCell<Result<T, Error>>()
        state = FutureState(cell: cell, run: run, startedAt: site)
        // Without a task to share, nothing but ``cancel()`` can cancel this run (it has no
        // parent), and that completes the cell itself: only a run its task can cancel needs a
        // handler to release the waiters. Row 10c makes thousands of these futures at once.
        if sharesCancellation {
            run.onCancel { cell.complete(with: .failure(CancellableTaskError.taskWasCancelled)) }
        }
        guard !body.isCancelled else {
            cell.complete(with: .failure(CancellableTaskError.taskWasCancelled))
            run.close()
            return
        }
        if body.chainLength > 0 {
            // The chain's loop makes `run` current itself. Whatever cancels `run` completes
            // `cell`: the handler above, or ``cancel()``, which has no other way to cancel it.
            ChainRun.start(body, run: run, waitersWaitForTheCell: true) { chain, outcome in
                Run.end(chain.run, with: ChainSlot.take(outcome, as: T.self)) { cell.complete(with: $0) }
            }
        } else {
            CurrentRun.whileRunning(run) {
                body.start { outcome in Run.end(run, with: outcome) { cell.complete(with: $0) } }
            }
        }
    }

    /// A future has no work of its own to run; waiting for it only listens.
    public var executionQueue: DispatchQueue { QueueAffinity.defaultGlobalQueue }

    /// Reports the outcome through `completion` once it is known: at once, on this thread,
    /// when it already is, and otherwise on the thread that completes the future.
    @inlinable
    public func action(completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        state.cell.whenComplete(completion)
    }

    /// The outcome, if it is known yet; `nil` while the work is still running.
    public var result: Result<T, Error>? {
        state.cell.completedValue
    }

    /// Whether the future ended by being cancelled.
    public var isCancelled: Bool {
        if case .failure(CancellableTaskError.taskWasCancelled)? = state.cell.completedValue { return true }
        return false
    }

    /// Cancels the future if its outcome is not known yet: every waiter and continuation gets
    /// ``CancellableTaskError/taskWasCancelled`` at once, and the run behind it is cancelled
    /// (its work sees ``ThrowableTask/isCurrentTaskCancelled``). A future that already has its
    /// outcome keeps it. The task it was started from stays usable.
    public func cancel() {
        state.cancel()
    }
}

extension Future: KindOfTask {
    @inlinable
    static func kind<Work, Value>(of task: Work, producing _: Value.Type) -> TaskKind<Value> {
        // `Work` is this type, and `Value` its `T` (see ``TaskKind/of(_:)``).
        .listening(unsafeBitCast(task, to: Future<Value>.self).state)
    }
}
