// The examples of the DocC article "Moving from Taskig 1.x", built in Swift 5 language mode
// like the 1.x code bases it is for. The 1.x README's own examples, which the article
// quotes, are in ReadmeExamplesTests.swift; their helpers (`encrypt`, `get`,
// `toStringExceptZero`, …) are shared.
import Dispatch
import Foundation
import Taskig
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - "await() inside async code"

func refresh() async throws -> String {
    try await toStringExceptZero(number: 7).value  // not: try toStringExceptZero(number: 7).await()
}

func encryptAll(_ messages: [String]) async -> [String] {
    await Task { messages.map(encrypt).awaitAll(concurrency: 5) }.value
}

final class MovingFromTaskig1Tests: XCTestCase {
    func testWhatCompilesUnchanged() {
        let message = "hello"
        let messages = ["1", "2", "3"]
        let replicatedURLs = [unreachable, unreachable]
        let delivered = expectation(description: "async")

        encrypt(message: message).async { ciphertext in /* do something */ delivered.fulfill() }
        let ciphertext = encrypt(message: message).await()

        let all = messages.map(encrypt).awaitAll(concurrency: 5)
        let first = replicatedURLs.map(get).awaitFirst()

        var printed: [String] = []
        if case let .failure(error) = toStringExceptZero(number: 0).awaitResult() {
            print(error)
            printed.append("\(error)")
        }

        wait(for: [delivered], timeout: 10)
        XCTAssertEqual(ciphertext, "olleh")
        XCTAssertEqual(all, ["1", "2", "3"])
        XCTAssertNotNil(first.2)
        XCTAssertEqual(printed, ["FoundZero"])
    }

    func testCancelIsForGoodInEveryCopy() {
        let task = ThrowableTask<String> { "Foobar" }
        let copy = task
        task.cancel()
        XCTAssertTrue(copy.isCancelled, "copies share one cancellation")
        XCTAssertThrowsError(try copy.await()) { error in
            XCTAssertEqual(error as? CancellableTaskError, .taskWasCancelled)
        }

        var flagged = ThrowableTask<String> { "Foobar" }
        let flaggedCopy = flagged
        flagged.isCancelled = true
        XCTAssertTrue(flaggedCopy.isCancelled, "the 1.x spelling cancels every copy too")
    }

    func testGlobalWorkInsideATaskRunsOnItsThread() {
        let outer = Task { () -> Bool in
            let waiter = Thread.current
            return Task { Thread.current == waiter }.await()
        }
        XCTAssertTrue(outer.await(), "a global task awaited inside a task runs on that task's thread")
    }

    func testValueInAsyncCode() async throws {
        let text = try await refresh()
        let encrypted = await encryptAll(["ab", "cd"])
        XCTAssertEqual(text, "7")
        XCTAssertEqual(encrypted, ["ba", "dc"])
    }
}
