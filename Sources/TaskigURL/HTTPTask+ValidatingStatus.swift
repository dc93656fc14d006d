import Foundation

extension HTTPTask {
    /// The same request, failing with ``TaskigURLError/badStatus(code:headers:body:)`` when
    /// the server answers with a status outside `accepted`.
    ///
    /// The error carries the status code, the headers and the body, so a caller can show the
    /// server's own explanation. A download with a rejected status is not moved into place;
    /// its body is in the error instead. Redirects are followed before the status is judged.
    /// A second call replaces the first one's range. The returned task shares this task's
    /// cancellation for good: calling `cancel()` on either cancels both.
    ///
    /// ```swift
    /// do {
    ///     let (data, _) = try session.taskig.data(from: url).validatingStatus(200..<300).await()
    ///     print(String(decoding: data, as: UTF8.self))
    /// } catch TaskigURLError.badStatus(let code, _, let body) {
    ///     print("HTTP \(code):", String(decoding: body, as: UTF8.self))
    /// }
    /// ```
    public func validatingStatus(_ accepted: some RangeExpression<Int> & Sendable) -> HTTPTask {
        HTTPTask(
            sessions: sessions,
            request: request,
            transfer: transfer,
            validation: StatusValidation(accepts: { accepted.contains($0) }),
            cancellation: cancellation
        )
    }
}
