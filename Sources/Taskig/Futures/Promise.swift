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
public final class Promise<T>: Sendable {
    /// The future whose outcome this promise decides.
    public let future: Future<T>

    /// A promise whose future is still waiting for an outcome.
    public init() {
        future = Future(state: FutureState(cell: CompletionCell(), run: nil))
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
