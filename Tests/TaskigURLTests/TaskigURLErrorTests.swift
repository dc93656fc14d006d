import Foundation
import TaskigURL
import Testing

@Suite("TaskigURLError")
struct TaskigURLErrorTests {
    @Test("every case explains itself")
    func descriptions() {
        let ftp = URL(string: "ftp://example.com/file")!
        #expect(
            TaskigURLError.unsupportedURL(ftp).description.contains(
                "ftp://example.com/file is not an http or https URL"))
        #expect(TaskigURLError.unsupportedURL(nil).description.contains("has no URL"))
        #expect(TaskigURLError.notHTTPResponse(ftp).description.contains("is not an HTTP response"))
        let badStatus = TaskigURLError.badStatus(code: 503, headers: [:], body: Data("try later".utf8))
        #expect(
            badStatus.description
                == "TaskigURLError.badStatus: the server answered 503, a status the task does not accept "
                + "(the error carries the headers and the whole body); body begins: try later")
        #expect(
            TaskigURLError.badStatus(code: 500, headers: [:], body: Data()).description.hasSuffix(
                "(the error carries the headers and the whole body)"))
    }

    @Test("every case says what to do, and localizedDescription says the same")
    func localizedDescriptions() {
        let ftp = URL(string: "ftp://example.com/file")!
        let cases: [(TaskigURLError, String)] = [
            (.unsupportedURL(ftp), "use an absolute http or https URL"),
            (.unsupportedURL(nil), "give it an http or https URL"),
            (.notHTTPResponse(ftp), "check the URLProtocol classes the session uses"),
            (.badStatus(code: 404, headers: [:], body: Data()), "the error carries the headers and the whole body"),
        ]
        for (error, toDo) in cases {
            #expect(error.description.contains(toDo))
            #expect((error as Error).localizedDescription == error.description)
        }
    }
}
