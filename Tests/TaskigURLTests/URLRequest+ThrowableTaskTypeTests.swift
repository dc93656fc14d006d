import Foundation
import TaskigURL
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("URLRequest as a task")
struct URLRequestThrowableTaskTypeTests {
    @Test("POST sends the method and the body")
    func post() throws {
        try withServer { server in
            var request = URLRequest(url: server.url("/echo"))
            request.httpMethod = "POST"
            request.httpBody = Data("remember the milk".utf8)
            let (data, response) = try withWatchdog { [request] in try request.await() }
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "X-Method") == "POST")
            #expect(String(decoding: data, as: UTF8.self) == "remember the milk")
        }
    }

    @Test("GET sends no body")
    func get() throws {
        try withServer { server in
            let request = URLRequest(url: server.url("/echo"))
            let (data, response) = try withWatchdog { try request.await() }
            #expect(response.value(forHTTPHeaderField: "X-Method") == "GET")
            #expect(data.isEmpty)
        }
    }

    @Test("a request without a URL is unsupportedURL(nil)")
    func noURL() throws {
        var request = URLRequest(url: URL(string: "http://127.0.0.1/")!)
        request.url = nil
        let result = try withWatchdog { [request] in request.awaitResult() }
        guard case .failure(TaskigURLError.unsupportedURL(nil)) = result else {
            Issue.record("expected unsupportedURL(nil), got \(result)")
            return
        }
    }

    @Test("validatingStatus accepts a status in range and rejects one outside")
    func validatingStatus() throws {
        try withServer { server in
            let hello = URLRequest(url: server.url("/hello"))
            let (data, _) = try withWatchdog { try hello.validatingStatus(200..<300).await() }
            #expect(String(decoding: data, as: UTF8.self) == "hello, world")

            let result = try withWatchdog { hello.validatingStatus(201...).awaitResult() }
            guard case .failure(TaskigURLError.badStatus(200, _, let body)) = result else {
                Issue.record("expected badStatus(200), got \(result)")
                return
            }
            #expect(String(decoding: body, as: UTF8.self) == "hello, world")
        }
    }

    @Test("await(timeout:) on a request cancels it: the server sees the connection close")
    func timeoutCancelsTheRequest() throws {
        try withServer { server in
            let request = URLRequest(url: server.url("/slow?ms=5000"))
            let result = try withWatchdog { Result { try request.await(timeout: 0.2) } }
            guard case .failure(TaskigError.timedOut) = result else {
                Issue.record("expected timedOut, got \(result)")
                return
            }
            #expect(server.clientClosedEverySlowRequestItDidNotWaitFor())
        }
    }
}
