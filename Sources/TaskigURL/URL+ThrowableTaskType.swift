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
/// and `https` URLs are fetched, and a run that is given up on (a timeout, a lost race, a
/// failing `awaitAll`, `Future.cancel()`, a cancelled Swift task awaiting `value`, or the
/// cancellation of the run it is nested in) cancels its request, closing the connection.
/// For a session of your own use ``TaskigSession`` (`session.taskig.data(from: url)`).
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
