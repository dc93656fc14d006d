// The tour of this package's README, built in Swift 5 language mode as most clients are. Each
// snippet is a function body, as written in the README; the names it uses are declared
// here. TaskigURL's snippet is not among them: this target declares the 1.x README's own
// `URL: ThrowableTaskType`, which TaskigURL provides itself.
import Dispatch
import Foundation
import Taskig
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum Tour {
    // MARK: - What the snippets use

    struct ParseError: Error { init(_ text: String) {} }
    struct User { var avatarURL = URL(fileURLWithPath: "/avatar.png") }
    enum AppError: Error { case network(Error) }
    final class ImageView { func show(_ data: Data) {} }
    final class Spinner { func stop() {} }

    static let path = URL(fileURLWithPath: "/dev/null")
    static let url = URL(fileURLWithPath: "/dev/null")
    static let urls = [url]
    static let mirrors = [url, url]
    static let id = 7
    static let a = "a"
    static let b = "b"
    static let files = ["x", "y"]
    static let uploads = [ThrowableTask { 1 }]
    static let remote = ThrowableTask { Data() }
    static let cached = ThrowableTask { Data() }
    static let bundled = ThrowableTask { Data() }
    static let downloads = [ThrowableTask { url }]
    static let batches = [ThrowableTask { 1 }]
    static let placeholderImageData = Data()
    static let imageView = ImageView()
    static let spinner = Spinner()
    static let buildReport = ThrowableTask { "report" }

    static func download() async throws -> Data { Data() }
    static func fnv1a(_ data: Data) -> UInt64 { UInt64(data.count) }
    static func fetch(_ url: URL) -> ThrowableTask<Data> { ThrowableTask { Data() } }
    static func sizeOf(_ name: String) -> ThrowableTask<Int> { ThrowableTask { name.count } }
    static func count(_ file: String) throws -> Int { file.count }
    static func verify(_ file: String) -> Int { 1 }
    static func fetchUser(_ id: Int) -> ThrowableTask<User> { ThrowableTask { User() } }
    static func fetchAvatar(_ id: Int) -> ThrowableTask<Data> { ThrowableTask { Data() } }
    static func upload(_ file: URL) -> ThrowableTask<Int> { ThrowableTask { 1 } }
    static func loadItems() -> ThrowableTask<[String]> { ThrowableTask { ["item"] } }
    static func legacyDownload(_ done: @escaping (Data?, Error?) -> Void) { done(Data(), nil) }

    // MARK: - The README's snippets

    static func encrypt(message: String) -> Task<String> {
        Task { String(message.reversed()) }
    }

    static func tasks() {
        let ciphertext = encrypt(message: "hello").await()  // blocks, returns "olleh"
        encrypt(message: "hello").async { print($0) }  // does not block
        let onMain = Task<Void>(executionQueue: .main) { print("on the main queue") }
        // .userInteractive, .userInitiated, .utility, .background
        let answer = Task<Int>(executionQueue: .background) { 42 }
        Task.async(delayBy: 0.25) { print("a quarter second later") }
        let n = Task<Int>.await { 6 * 7 }
        _ = (ciphertext, onMain, answer, n)
        _ = Task { done in URLSession.shared.dataTask(with: url) { done(($0, $1, $2)) }.resume() }
    }

    static func parse(_ text: String) -> ThrowableTask<Int> {
        ThrowableTask {
            guard let number = Int(text) else { throw ParseError(text) }
            return number
        }
    }

    static func errors() throws {
        let value = try parse("12").await()
        if case .failure(let error) = parse("twelve").awaitResult() { print(error) }
        let fromAsyncCode = ThrowableTask { () async throws -> Data in try await download() }
        _ = (value, fromAsyncCode)
    }

    struct Checksum: ThrowableTaskType {
        let file: URL
        var executionQueue: DispatchQueue { .utility }
        func action(completion: @escaping @Sendable (Result<UInt64, Error>) -> Void) {
            completion(Result { try fnv1a(Data(contentsOf: file)) })
        }
    }

    static func yourOwnTypes() throws {
        let sum = try Checksum(file: path).await()
        _ = sum
    }

    static func collections() throws {
        let all = try urls.map(fetch).awaitAll(concurrency: 8)  // values in input order, fail-fast
        let settled = uploads.awaitAllResults()  // every Result, in input order
        let fastest = try mirrors.map(fetch).awaitFirst()  // first to finish; the other runs are cancelled
        let working = try [remote, cached, bundled].awaitAny()  // first to succeed
        let sizes = try ["a": sizeOf(a), "b": sizeOf(b)].awaitAll()  // dictionaries keep their keys
        let total = try files.awaitReduce(0) { sum, file in  // one at a time, stops at the first error
            ThrowableTask { sum + (try count(file)) }
        }
        let (user, avatar) = try awaitAll(fetchUser(id), fetchAvatar(id))  // different types, in parallel

        for (offset, result) in downloads.completions(concurrency: 8) {  // outcomes as they settle
            if case .failure(let error) = result { print("download \(offset) failed:", error) }
        }
        let progress = Progress(totalUnitCount: 0)  // Foundation's; show it, or cancel() it
        let pages = try urls.map(fetch).awaitAll(concurrency: 8, progress: progress)
        _ = (all, settled, fastest, working, sizes, total, user, avatar, pages)
    }

    static func composing() {
        let avatar = fetchUser(id)
            .map { $0.avatarURL }  // transform the value
            .flatMap { url in fetch(url) }  // continue with another task
            .mapError { AppError.network($0) }  // replace the error
            .recover { _ in placeholderImageData }  // or ThrowableTask { … } to recover with a task
            .map(on: MainActor.self) { imageView.show($0) }  // a @MainActor step, on the main queue
            .finally { spinner.stop() }  // runs on both outcomes, before the result passes on
        let status = upload(path).continueWith { result in "\(result)" }  // always runs, sees the Result
        _ = (avatar, status)
    }

    static func futuresAndPromises() throws {
        let report = buildReport.start()  // hot: starts now, memoized
        let text = try report.await()  // every waiter, early or late, sees the same result
        let promise = Promise<Data>()  // the write side: resolve, reject or cancel; the first wins
        legacyDownload { data, error in
            if let data { promise.resolve(data) } else { promise.reject(error!) }
        }
        let data = try promise.future.await()
        _ = (text, data)
    }

    static func cancellation() throws {
        let scan = ThrowableTask { () -> Int in
            var checked = 0
            for file in files {
                try ThrowableTask.checkCancellation()  // throws once this run is cancelled
                checked += verify(file)
            }
            return checked
        }
        let quick = try? scan.await(timeout: 1)  // nil after 1 s; that run stops at its next check
        scan.cancel()  // for good: every later run fails at once
        _ = quick
    }

    static func time() throws {
        let page = try fetch(url).await(timeout: 5)  // throws TaskigError.timedOut, cancels that run
        let later = ThrowableTask.delay(0.5).map { "half a second later" }  // no thread held while waiting
        let robust = fetch(url).timeout(2).retry(3, delay: 0.2)  // up to 3 runs, waiting 0.2 s, then 0.4 s
        _ = (page, later, robust)
    }

    static func swiftConcurrency() async throws {
        let items = try await loadItems().value  // suspends; cancelling the Swift task cancels the run
        let sums = try await ThrowableTask { try batches.awaitAll() }.value  // a collection wait, from async code
        _ = (items, sums)
    }
}

final class TourExamplesTests: XCTestCase {
    func testTheTourRuns() async throws {
        try await Tour.swiftConcurrency()
        try await ThrowableTask {
            Tour.tasks()
            try Tour.errors()
            try Tour.collections()
            Tour.composing()
            try Tour.futuresAndPromises()
            try Tour.cancellation()
            try Tour.time()
        }.value
    }
}
