import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `URL` is a task that gets it on `URLSession.shared` and gives the body and the HTTP
/// response.
///
/// ```swift
/// let (data, response) = try URL(string: "https://example.com/")!.await()
/// print(response.statusCode, data.count)
///
/// let pages = try urls.awaitAll(concurrency: 4)
/// ```
///
/// It behaves exactly like `URLRequest(url: url)` (see `URLRequest`'s conformance): the
/// status is not judged, transport failures are the `URLError` URLSession gave, only `http`
/// and `https` URLs are fetched, ``await(timeout:)`` cancels the request it gives up on, and
/// for cancellation elsewhere or a session of your own use ``TaskigSession``
/// (`session.taskig.data(from: url)`).
extension URL: ThrowableTaskType {
    /// The body and the HTTP response.
    public typealias ResultType = (Data, HTTPURLResponse)

    /// Where a run starts: a global queue. URLSession does the work on its own threads.
    public var executionQueue: DispatchQueue { .global() }

    /// Gets the URL on `URLSession.shared` and reports the body and response, or the error,
    /// through `completion`.
    public func action(completion: @escaping @Sendable (Result<ResultType, Error>) -> Void) {
        URLRequest(url: self).action(completion: completion)
    }

    /// Gets the URL on `URLSession.shared` and blocks at most `timeout` seconds for the
    /// answer; when the time is up it cancels the request, closing its connection, and
    /// throws ``/Taskig/TaskigError/timedOut``.
    @discardableResult
    public func await(timeout: TimeInterval) throws -> ResultType {
        try URLRequest(url: self).await(timeout: timeout)
    }

    /// A cancellable task that gets the URL on `URLSession.shared` and fails with
    /// ``TaskigURLError/badStatus(code:headers:body:)`` when the status is outside `accepted`.
    ///
    /// ```swift
    /// let (data, _) = try url.validatingStatus(200..<300).await()
    /// ```
    public func validatingStatus(_ accepted: some RangeExpression<Int> & Sendable) -> HTTPTask<Data> {
        URLRequest(url: self).validatingStatus(accepted)
    }
}
