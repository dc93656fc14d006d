import Foundation
import TaskigURL
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("HTTPTask.validatingStatus")
struct HTTPTaskValidatingStatusTests {
    @Test("a status outside the range is badStatus with the status code, headers and body")
    func rejected() throws {
        try withServer { server in
            let task = URLSession.shared.taskig.data(from: server.url("/missing")).validatingStatus(200..<300)
            let result = try withWatchdog { task.awaitResult() }
            guard case .failure(let error) = result,
                case TaskigURLError.badStatus(let code, let headers, let body) = error
            else {
                Issue.record("expected badStatus, got \(result)")
                return
            }
            #expect(code == 404)
            #expect(headers["X-Reason"] == "missing")
            #expect(headers["Content-Length"] == "12")
            #expect(String(decoding: body, as: UTF8.self) == "no such page")
            #expect(String(describing: error).contains("404"))
            #expect(String(describing: error).contains("no such page"))
        }
    }

    @Test("a status inside the range passes through, whatever the range", arguments: [200..<300, 404..<405])
    func accepted(_ range: Range<Int>) throws {
        try withServer { server in
            let path = range.contains(404) ? "/missing" : "/hello"
            let task = URLSession.shared.taskig.data(from: server.url(path)).validatingStatus(range)
            let (_, response) = try withWatchdog { try task.await() }
            #expect(range.contains(response.statusCode))
        }
    }

    @Test("a redirect is followed before the status is judged")
    func redirectThenValidate() throws {
        try withServer { server in
            let task = URLSession.shared.taskig.data(from: server.url("/redirect")).validatingStatus(200..<300)
            let (data, response) = try withWatchdog { try task.await() }
            #expect(response.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "hello, world")
        }
    }

    @Test("the validating task shares the cancellation of the task it came from")
    func sharesCancellation() {
        let base = URLSession.shared.taskig.data(from: URL(string: "http://127.0.0.1/")!)
        let validating = base.validatingStatus(200..<300)
        base.cancel()
        #expect(validating.isCancelled)
    }
}
