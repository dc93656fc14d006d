import Foundation
import TaskigURL
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("URL as a task")
struct URLThrowableTaskTypeTests {
    @Test("the README example: try URL(string:)!.await() gives the body and the response")
    func readmeExample() throws {
        try withServer { server in
            let port = server.port
            let (data, response) = try withWatchdog {
                try URL(string: "http://127.0.0.1:\(port)/hello")!.await()
            }
            #expect(String(decoding: data, as: UTF8.self) == "hello, world")
            #expect(response.statusCode == 200)
            #expect(response.url?.path == "/hello")
        }
    }

    @Test("a 404 is a normal result, body included, when the status is not validated")
    func notFoundIsAResult() throws {
        try withServer { server in
            let url = server.url("/missing")
            let (data, response) = try withWatchdog { try url.await() }
            #expect(response.statusCode == 404)
            #expect(String(decoding: data, as: UTF8.self) == "no such page")
            #expect(response.value(forHTTPHeaderField: "X-Reason") == "missing")
        }
    }

    @Test("validatingStatus turns a 404 into badStatus with code, headers and body")
    func notFoundWithValidation() throws {
        try withServer { server in
            let url = server.url("/missing")
            let result = try withWatchdog { url.validatingStatus(200..<300).awaitResult() }
            guard case .failure(TaskigURLError.badStatus(let code, let headers, let body)) = result else {
                Issue.record("expected badStatus, got \(result)")
                return
            }
            #expect(code == 404)
            #expect(headers["X-Reason"] == "missing")
            #expect(String(decoding: body, as: UTF8.self) == "no such page")
        }
    }

    @Test("a redirect is followed to its target")
    func redirect() throws {
        try withServer { server in
            let url = server.url("/redirect")
            let (data, response) = try withWatchdog { try url.await() }
            #expect(response.statusCode == 200)
            #expect(response.url?.path == "/hello")
            #expect(String(decoding: data, as: UTF8.self) == "hello, world")
            #expect(server.snapshot.arrivals == ["/redirect": 1, "/hello": 1])
        }
    }

    @Test("a body of several megabytes arrives whole")
    func largeBody() throws {
        try withServer { server in
            let size = 8 << 20
            let url = server.url("/large?bytes=\(size)")
            let (data, response) = try withWatchdog { try url.await() }
            #expect(response.statusCode == 200)
            #expect(data.count == size)
            #expect(data == TestRoutes.largeBody(count: size))
        }
    }

    @Test("a refused connection is URLError.cannotConnectToHost (-1004)")
    func refusedConnection() throws {
        let url = URL(string: "http://127.0.0.1:\(try TestHTTPServer.closedPort())/hello")!
        let result = try withWatchdog { url.awaitResult() }
        let error = #expect(throws: URLError.self) { try result.get() }
        #expect(error?.code == .cannotConnectToHost)
        #expect(error?.errorCode == -1004)
    }

    @Test(
        "a URL that is not http or https is unsupportedURL, and nothing is sent",
        arguments: ["ftp://127.0.0.1:PORT/file.txt", "file:///etc/hostname", "data:text/plain,hello", "relative/path"]
    )
    func unsupportedScheme(_ template: String) throws {
        try withServer { server in
            let url = URL(string: template.replacingOccurrences(of: "PORT", with: "\(server.port)"))!
            let result = try withWatchdog { url.awaitResult() }
            guard case .failure(TaskigURLError.unsupportedURL(let rejected)) = result else {
                Issue.record("expected unsupportedURL, got \(result)")
                return
            }
            #expect(rejected == url)
            #expect(server.snapshot.arrivals.isEmpty)
        }
    }

    @Test(
        "a malformed http URL is URLError.badURL",
        arguments: ["http://", "http:///no-host", "http://127.0.0.1:99999/port-out-of-range"]
    )
    func malformedURL(_ text: String) throws {
        let url = try #require(URL(string: text))
        let result = try withWatchdog { url.awaitResult() }
        let error = #expect(throws: URLError.self) { try result.get() }
        #expect(error?.code == .badURL)
    }

    @Test("a server that closes mid-body gives a URLError, not a truncated body")
    func closedMidBody() throws {
        try withServer { server in
            let url = server.url("/close-mid-body")
            let result = try withWatchdog { url.awaitResult() }
            let error = #expect(throws: URLError.self) { try result.get() }
            // FoundationNetworking reports curl's "transfer closed with 900 bytes remaining"
            // as URLError.unknown; Apple's URLSession says networkConnectionLost.
            #expect(error.map { [.unknown, .networkConnectionLost].contains($0.code) } == true)
        }
    }

    @Test("a Content-Length larger than the body ends with the request's own timeout, as URLError.timedOut")
    func wrongContentLength() throws {
        try withServer { server in
            var request = URLRequest(url: server.url("/wrong-length"))
            request.timeoutInterval = 0.5
            let started = Date()
            let result = try withWatchdog { [request] in request.awaitResult() }
            let error = #expect(throws: URLError.self) { try result.get() }
            #expect(error?.code == .timedOut)
            // Beside two busy loops (load 13–25): 0.01–0.07 s debug, 0.02–0.26 s ThreadSanitizer.
            #expect(secondsSince(started) < 5)
        }
    }

    @Test("a server that does not speak HTTP gives a URLError")
    func notHTTPServer() throws {
        try withServer { server in
            let url = server.url("/not-http")
            let result = try withWatchdog { url.awaitResult() }
            // curl refuses the reply as HTTP/0.9, which FoundationNetworking reports as
            // unsupportedURL; Apple's URLSession says cannotParseResponse.
            let error = #expect(throws: URLError.self) { try result.get() }
            #expect(
                error.map { [.unsupportedURL, .cannotParseResponse, .badServerResponse].contains($0.code) } == true)
        }
    }

    @Test("await(timeout:) throws timedOut and cancels the request: the server sees the connection close")
    func timeoutCancelsTheRequest() throws {
        try withServer { server in
            let url = server.url("/slow?ms=5000")
            let started = Date()
            let result = try withWatchdog { Result { try url.await(timeout: 0.3) } }
            guard case .failure(TaskigError.timedOut) = result else {
                Issue.record("expected timedOut, got \(result)")
                return
            }
            // Beside two busy loops (load 13–25): 0.30 s debug, 0.31–0.38 s ThreadSanitizer (the
            // timeout is 0.3 s); the request would take 5 s.
            #expect(secondsSince(started) < 2)
            #expect(server.clientClosedEverySlowRequestItDidNotWaitFor())
        }
    }
}
