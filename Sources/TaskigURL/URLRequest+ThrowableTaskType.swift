import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `URLRequest` is a task that sends it on `URLSession.shared` and gives the body and the
/// HTTP response.
///
/// ```swift
/// var request = URLRequest(url: URL(string: "https://example.com/notes")!)
/// request.httpMethod = "POST"
/// request.httpBody = Data("remember the milk".utf8)
/// let (data, response) = try request.await()
/// ```
///
/// It behaves like ``TaskigSession/data(for:progress:)`` on the shared session: the status is not
/// judged (a 404 is a normal result; see ``validatingStatus(_:)``), transport failures are
/// the `URLError` URLSession gave, and only `http` and `https` URLs are sent. The shared
/// session opens at most 6 connections per host, so `awaitAll(concurrency:)` above 6 on one
/// host needs a session configured for more (``TaskigSession``).
///
/// A request is a value and cannot be cancelled for good, but every run can: a run that is
/// given up on (a timeout, a lost race, a failing `awaitAll`, `Future.cancel()`, a cancelled
/// Swift task awaiting `value`, or the cancellation of the run it is nested in) cancels its
/// `URLSessionTask`, closing the connection.
extension URLRequest: ThrowableTaskType {
    /// The body and the HTTP response.
    public typealias ResultType = (Data, HTTPURLResponse)

    /// Where a run starts: a global queue. URLSession does the work on its own threads.
    public var executionQueue: DispatchQueue { .global() }

    /// Sends the request on `URLSession.shared` and reports the body and response, or the
    /// error, through `completion`.
    public func action(completion: @escaping @Sendable (Result<ResultType, Error>) -> Void) {
        URLSession.shared.taskig.data(for: self).action(completion: completion)
    }

    /// A cancellable task that sends the request on `URLSession.shared` and fails with
    /// ``TaskigURLError/badStatus(code:headers:body:)`` when the status is outside `accepted`.
    ///
    /// ```swift
    /// let (data, _) = try request.validatingStatus(200..<300).await()
    /// ```
    public func validatingStatus(_ accepted: some RangeExpression<Int> & Sendable) -> HTTPTask<Data> {
        URLSession.shared.taskig.data(for: self).validatingStatus(accepted)
    }
}
