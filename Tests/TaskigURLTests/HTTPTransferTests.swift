import Foundation
import Testing

@testable import TaskigURL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response that is not HTTP cannot come from an `http` or `https` URL through URLSession
/// without a custom `URLProtocol`, and other schemes are refused before anything is sent (see
/// `URL+ThrowableTaskTypeTests`), so the check that replaces a force cast is tested here
/// directly.
@Suite("HTTPTransfer: reading what URLSession reported")
struct HTTPTransferTests {
    @Test("a response that is not HTTP is notHTTPResponse carrying its URL")
    func notHTTPResponse() {
        let url = URL(string: "data:text/plain,hello")!
        let response = URLResponse(url: url, mimeType: "text/plain", expectedContentLength: 5, textEncodingName: nil)
        #expect {
            try HTTPTransfer<Data>.httpResponse(response, error: nil)
        } throws: { error in
            guard case TaskigURLError.notHTTPResponse(let reported) = error else { return false }
            return reported == url
        }
    }

    @Test("no response and no error is notHTTPResponse(nil), not a crash")
    func noResponse() {
        #expect {
            try HTTPTransfer<Data>.httpResponse(nil, error: nil)
        } throws: { error in
            guard case TaskigURLError.notHTTPResponse(nil) = error else { return false }
            return true
        }
    }

    @Test("URLSession's error is thrown as it was given")
    func errorPassesThrough() {
        let error = #expect(throws: URLError.self) {
            try HTTPTransfer<Data>.httpResponse(nil, error: URLError(.cannotConnectToHost))
        }
        #expect(error?.code == .cannotConnectToHost)
    }

    @Test("an HTTP response is returned as it is")
    func httpResponse() throws {
        let url = URL(string: "http://127.0.0.1/")!
        let response = try #require(
            HTTPURLResponse(url: url, statusCode: 204, httpVersion: "HTTP/1.1", headerFields: [:]))
        #expect(try HTTPTransfer<Data>.httpResponse(response, error: nil) === response)
    }
}
