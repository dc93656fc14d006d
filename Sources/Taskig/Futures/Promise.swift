/// The write side of a ``Future``: whoever holds the promise decides its outcome (Bolts'
/// `TaskCompletionSource`, a promise's resolve and reject).
///
/// The first of ``resolve(_:)``, ``reject(_:)`` and ``cancel()`` wins; later calls change
/// nothing and return `false`. This holds when many threads call them at once. The
/// continuations registered on the future run on the thread that decides the outcome, before
/// that call returns (those registered by a continuation run after it, on the same thread).
///
/// ```swift
/// let promise = Promise<Data>()
/// legacyDownload(url) { data, error in
///     if let data { promise.resolve(data) } else { promise.reject(error ?? DownloadError()) }
/// }
/// let data = try promise.future.await()
/// ```
///
/// A promise released unresolved fails its future with ``TaskigError/promiseDropped(madeAt:)``,
/// which names where it was made, so that nothing waits for an outcome nobody can decide (as
/// C++'s `std::promise` fails with `broken_promise`). Whatever still holds the promise, such
/// as a callback that has not run yet, keeps it from being released: its outcome then comes as
/// usual.
public final class Promise<T>: Sendable {
    /// The future whose outcome this promise decides.
    public let future: Future<T>

    /// A promise whose future is still waiting for an outcome.
    ///
    /// `file` and `line` default to where the promise is made; a promise released without an
    /// outcome names them in the ``TaskigError/promiseDropped(madeAt:)`` its future fails with.
    /// A function that makes promises for its callers can pass its own caller's place on:
    ///
    /// ```swift
    /// let promise = Promise<Data>()          // TaskigError.promiseDropped(madeAt: MyApp/Fetch.swift:12)
    ///
    /// func pending<T>(file: StaticString = #fileID, line: UInt = #line) -> Promise<T> {
    ///     Promise(file: file, line: line)
    /// }
    /// ```
    public init(file: StaticString = #fileID, line: UInt = #line) {
        // The future's `startedAt`, which wait reports name it by, is where the promise was made.
        future = Future(state: FutureState(cell: CompletionCell(), run: nil, startedAt: StaticCallSite(file, line)))
    }

    /// A promise released unresolved fails its future. This may run inside the releasing
    /// code's own `deinit`, or under its lock, so the outcome, which runs the future's
    /// continuations and wakes its waiters, is handed to a worker thread.
    deinit {
        let cell = future.state.cell
        guard !cell.isCompleted, let madeAt = future.state.startedAt else { return }
        WorkerPool.shared.submit {
            cell.complete(with: .failure(TaskigError.promiseDropped(madeAt: madeAt.callSite)))
        }
    }

    /// Fulfils the future with `value`. Returns `false`, changing nothing, when the future
    /// already has an outcome.
    @discardableResult
    public func resolve(_ value: T) -> Bool {
        future.state.cell.complete(with: .success(value))
    }

    /// Fails the future with `error`. Returns `false`, changing nothing, when the future
    /// already has an outcome.
    @discardableResult
    public func reject(_ error: Error) -> Bool {
        future.state.cell.complete(with: .failure(error))
    }

    /// Cancels the future: its waiters and continuations get
    /// ``CancellableTaskError/taskWasCancelled`` at once. Returns `false`, changing nothing,
    /// when the future already has an outcome.
    @discardableResult
    public func cancel() -> Bool {
        future.state.cancel()
    }
}
