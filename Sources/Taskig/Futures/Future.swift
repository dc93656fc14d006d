import Dispatch

/// The eventual outcome of work that has already started: hot and memoized.
///
/// Every waiter sees the same outcome, as often as it asks, including waiters that arrive
/// after it is known. A future comes from ``ThrowableTaskType/start()`` or from a
/// ``Promise``.
///
/// ```swift
/// let report = buildReport.start()      // starts now
/// doOtherWork()
/// let text = try report.await()         // waits only if it is not done yet
/// let again = try report.await()        // the same value, at once
/// ```
///
/// A future is a ``ThrowableTaskType``, so it composes (`map`, `flatMap`, …) and joins the
/// collection waits. Waiting for a future from inside its own work fails with
/// ``TaskigError/awaitedFromItsOwnWork`` instead of waiting forever.
public struct Future<T>: ThrowableTaskType, CancellableTaskType, Sendable {
    @usableFromInline
    let cell: CompletionCell<Result<T, Error>>
    /// The cancellation state of the work behind the future.
    @usableFromInline
    let sourceCancellation: CancellationToken

    @inlinable
    init(cell: CompletionCell<Result<T, Error>>, sourceCancellation: CancellationToken) {
        self.cell = cell
        self.sourceCancellation = sourceCancellation
    }

    /// A future has no work of its own to run; waiting for it only listens.
    public var executionQueue: DispatchQueue { QueueAffinity.defaultGlobalQueue }

    /// Reports the outcome through `completion` once it is known: at once, on this thread,
    /// when it already is.
    public func action(completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        cell.whenComplete(completion)
    }

    /// The outcome, if it is known yet; `nil` while the work is still running.
    public var result: Result<T, Error>? {
        cell.completedValue
    }

    /// Whether the future ended by being cancelled.
    public var isCancelled: Bool {
        if case .failure(CancellableTaskError.taskWasCancelled)? = cell.completedValue { return true }
        return false
    }

    /// Cancels the future if its outcome is not known yet: every waiter and continuation gets
    /// ``CancellableTaskError/taskWasCancelled`` at once, and the work behind it is
    /// cancelled. A future that already has its outcome keeps it.
    public func cancel() {
        _ = cancelIfPending()
    }

    @inlinable
    func cancelIfPending() -> Bool {
        guard cell.complete(with: .failure(CancellableTaskError.taskWasCancelled)) else { return false }
        sourceCancellation.cancel()
        return true
    }
}

extension Future: ActionReportsCancellation {}

extension Future: KnownQueueKind {
    @usableFromInline
    var executionQueueKind: QueueAffinity.Kind { .globalConcurrent }
}

extension Future: SelfAwaitDetectable {
    @usableFromInline
    var runningWorkIdentity: ObjectIdentifier? { ObjectIdentifier(cell.state.buffer) }
}
