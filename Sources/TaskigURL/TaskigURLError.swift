import Foundation

/// The failures TaskigURL itself reports.
///
/// Transport failures are not among them: those are thrown as the `URLError` URLSession gave
/// (a refused connection is `URLError.cannotConnectToHost`, a request timeout
/// `URLError.timedOut`).
///
/// ```swift
/// do {
///     let (data, _) = try url.validatingStatus(200..<300).await()
///     print(data.count)
/// } catch TaskigURLError.badStatus(let code, _, let body) {
///     print("server said \(code):", String(decoding: body, as: UTF8.self))
/// }
/// ```
public enum TaskigURLError: Error, CustomStringConvertible, LocalizedError {
    /// The URL is not an `http` or `https` URL (`ftp:`, `file:`, `data:`, a relative URL…),
    /// or the request has no URL (`nil`). Nothing was sent.
    ///
    /// URLSession would answer some of these schemes with a response that is not HTTP, or,
    /// for `ftp:` on Linux, try an FTP transfer; rejecting them before anything is sent
    /// gives the same error on every platform.
    case unsupportedURL(URL?)
    /// URLSession delivered a response that is not an `HTTPURLResponse`. Only a custom
    /// `URLProtocol` can produce one for an `http` or `https` URL; carries the response's URL.
    case notHTTPResponse(URL?)
    /// The server answered with a status the task was told not to accept (see
    /// ``HTTPTask/validatingStatus(_:)``). Carries the status code, the response headers and
    /// the body (for a download, the body of the file that was not moved into place).
    case badStatus(code: Int, headers: [String: String], body: Data)

    /// What happened, and what to do about it.
    public var description: String {
        switch self {
        case .unsupportedURL(let url):
            guard let url else {
                return "TaskigURLError.unsupportedURL: the request has no URL, so nothing was sent; "
                    + "give it an http or https URL"
            }
            return "TaskigURLError.unsupportedURL: \(url.absoluteString) is not an http or https URL, "
                + "so nothing was sent; use an absolute http or https URL"
        case .notHTTPResponse(let url):
            let subject = url?.absoluteString ?? "the request"
            return "TaskigURLError.notHTTPResponse: the response for \(subject) is not an HTTP response; "
                + "check the URLProtocol classes the session uses"
        case .badStatus(let code, _, let body):
            let preview = String(decoding: body.prefix(200), as: UTF8.self)
            return "TaskigURLError.badStatus: the server answered \(code), a status the task does not accept "
                + "(the error carries the headers and the whole body)"
                + (preview.isEmpty ? "" : "; body begins: \(preview)")
        }
    }

    /// The same text as ``description``, so that `error.localizedDescription`, which most
    /// programs print, explains the failure on every platform.
    public var errorDescription: String? { description }
}
