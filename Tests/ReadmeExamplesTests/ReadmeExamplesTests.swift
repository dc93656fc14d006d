// The examples of the Taskig README, built in Swift 5 language mode as most existing
// clients are. They are translated only where Linux requires it: no UIKit (a small model
// stands in for the views), `URL`/`URLSession` instead of `NSURL`/`NSURLSession`,
// `@retroactive` on `String: Error`, and no real network
// (requests go to a closed port on 127.0.0.1, so they fail fast with a transport error).
import Dispatch
import Foundation
import Taskig
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - Stand-ins for the UIKit objects the README talks to

final class ImageScreen: @unchecked Sendable {
    private let lock = NSLock()
    private var _image: String?
    private var _alpha = 0.0
    var image: String? {
        get { lock.withLock { _image } }
        set { lock.withLock { _image = newValue } }
    }
    var alpha: Double {
        get { lock.withLock { _alpha } }
        set { lock.withLock { _alpha = newValue } }
    }

    func applyImageFilter(_ image: String) -> String { "filtered \(image)" }

    func updateWithImage(_ image: String) -> Task<Void> {
        Task(executionQueue: .main) { self.image = image }
    }
}

enum View {
    /// `UIView.animateTask(withDuration:animations:)` from the README: a task that runs the
    /// animations on the main queue and reports completion.
    static func animateTask(
        withDuration duration: TimeInterval, animations: @escaping @Sendable () -> Void
    ) -> Task<Bool> {
        Task { done in
            DispatchQueue.main.async {
                animations()
                DispatchQueue.main.asyncAfter(deadline: .now() + duration) { done(true) }
            }
        }
    }
}

// MARK: - "Usage"

func encrypt(_ message: String) -> String { String(message.reversed()) }

// synchronous API wrapped in task
func encrypt(message: String) -> Task<String> {
    return Task {
        encrypt(message)
    }
}

// asynchronous API wrapped in task
func get(URL: URL) -> Task<(Data?, URLResponse?, Error?)> {
    return Task { completionHandler in
        URLSession.shared.dataTask(with: URL) { completionHandler(($0, $1, $2)) }.resume()
    }
}

let unreachable = URL(string: "http://127.0.0.1:1/")!

func processImage(_ image: String) -> Task<String> { Task { image + " processed" } }

// MARK: - "Handling Errors"

extension String: @retroactive Error {}

func toStringExceptZero(number: Int) -> ThrowableTask<String> {
    return ThrowableTask<String> {
        guard number != 0 else {
            throw "FoundZero"
        }

        return "\(number)"
    }
}

// MARK: - "Extending Tasks"

extension URL: ThrowableTaskType {
    typealias ReturnType = (Data, HTTPURLResponse)

    /// Where the request starts.
    public var executionQueue: DispatchQueue { return DispatchQueue.global() }

    /// Gets the URL and reports the body and response.
    public func action(completion: @escaping (TaskResult<(Data, HTTPURLResponse)>) -> Void) {
        URLSession.shared.dataTask(with: self) { (data, response, error) in
            guard error == nil else {
                completion(.failure(error!))
                return
            }

            completion(.success((data!, response as! HTTPURLResponse)))
        }.resume()
    }
}

final class ReadmeExamplesTests: XCTestCase {
    func testWithTaskig() {
        let screen = ImageScreen()
        let finished = expectation(description: "finished")
        let image = "photo"
        Task.async {
            let enhancedImage = screen.applyImageFilter(image)

            Task.async(executionQueue: .main) { screen.image = enhancedImage }

            View.animateTask(withDuration: 0.3) { screen.alpha = 1 }.await()

            // add code to happen next here
            finished.fulfill()
        }
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(screen.image, "filtered photo")
        XCTAssertEqual(screen.alpha, 1)
    }

    func testAsyncAndAwait() {
        let message = "hello"
        let received = expectation(description: "async results")
        received.expectedFulfillmentCount = 2

        // async
        encrypt(message: message).async { ciphertext in
            XCTAssertEqual(ciphertext, "olleh"); received.fulfill()
        }
        get(URL: unreachable).async { (data, response, error) in
            XCTAssertNotNil(error); received.fulfill()
        }

        // await
        let ciphertext = encrypt(message: message).await()
        let (data, response, error) = get(URL: unreachable).await()

        wait(for: [received], timeout: 10)
        XCTAssertEqual(ciphertext, "olleh")
        XCTAssertNil(data)
        XCTAssertNil(response)
        XCTAssertNotNil(error)
    }

    func testExecutionQueues() {
        let onMain = Task<Void>(executionQueue: .main) {
            print("On Main Thread")
            //Update UI here
        }

        let answer = Task<Int>(executionQueue: .background) { () -> Int in
            // Calculate something in the background
            return 42
        }

        onMain.await()
        XCTAssertEqual(answer.await(), 42)
    }

    func testComposingTasks() {
        let imageView = ImageScreen()
        let downloadImage = Task { "downloaded" }
        let finished = expectation(description: "finished")

        Task {
            print("downloading image")
            var image = downloadImage.await()
            imageView.updateWithImage(image).await()

            print("processing image")
            image = processImage(image).await()
            imageView.updateWithImage(image).await()

            print("finished")
            finished.fulfill()
        }.async()

        wait(for: [finished], timeout: 10)
        XCTAssertEqual(imageView.image, "downloaded processed")
    }

    func testCollectionsOfTasks() {
        // Get first result returned
        let replicatedURLs = ["http://127.0.0.1:1/web1", "http://127.0.0.1:1/web2"]
        let first = replicatedURLs.compactMap(URL.init(string:)).map(get).awaitFirst()
        XCTAssertNotNil(first.2)

        // Get all results
        let messages = ["1", "2", "3"]
        let all = messages.map(encrypt).awaitAll()
        XCTAssertEqual(all, ["1", "2", "3"])

        let numbersStrings = (0...900).map { String($0) }

        // Maximum of 5 parallel tasks
        let bounded = numbersStrings.map(encrypt).awaitAll(concurrency: 5)
        XCTAssertEqual(bounded, numbersStrings.map { String($0.reversed()) })
    }

    func testHandlingErrors() {
        var printed: [String] = []
        do {
            try toStringExceptZero(number: 0).await()
        } catch {
            // Prints "FoundZero" error
            print(error)
            printed.append("\(error)")
        }

        if case let .failure(error) = toStringExceptZero(number: 0).awaitResult() {
            print(error)
            printed.append("\(error)")
        }
        XCTAssertEqual(printed, ["FoundZero", "FoundZero"])
        XCTAssertEqual(try toStringExceptZero(number: 7).await(), "7")
    }

    func testExtendingTasks() {
        // The README's `try! URL(string: "www.google.com")!.await()`, against a closed port:
        // the transport error is thrown, as the extension says.
        XCTAssertThrowsError(try unreachable.await()) { error in
            XCTAssertEqual((error as? URLError)?.code, .cannotConnectToHost)
        }
    }

    func testCancellationSupport() {
        var task = ThrowableTask<String> { () -> String in
            return "Foobar"
        }

        task.isCancelled = true

        var caught: Error?
        do {
            try task.await()
        } catch {
            // CancellableTaskError.taskWasCancelled thrown
            print(error)
            caught = error
        }
        XCTAssertEqual(caught as? CancellableTaskError, .taskWasCancelled)
    }
}
