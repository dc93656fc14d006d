import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which status codes an ``HTTPTask`` accepts; any other becomes
/// ``TaskigURLError/badStatus(code:headers:body:)``.
struct StatusValidation: Sendable {
    let accepts: @Sendable (Int) -> Bool

    /// Throws when `response`'s status is not accepted. `body` is only read then, so that an
    /// accepted download is never read into memory.
    func check(_ response: HTTPURLResponse, body: () -> Data) throws {
        guard !accepts(response.statusCode) else { return }
        var headers: [String: String] = [:]
        for case (let name as String, let value as String) in response.allHeaderFields {
            headers[name] = value
        }
        throw TaskigURLError.badStatus(code: response.statusCode, headers: headers, body: body())
    }
}
