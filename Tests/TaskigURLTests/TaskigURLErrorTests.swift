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
        #expect(badStatus.description == "TaskigURLError.badStatus: the server answered 503; body begins: try later")
        #expect(TaskigURLError.badStatus(code: 500, headers: [:], body: Data()).description.hasSuffix("answered 500"))
    }
}
