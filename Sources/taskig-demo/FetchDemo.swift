import Foundation
import TaskigURL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Section 5: many GETs through TaskigURL and `awaitAll(concurrency:)`, against a loopback
/// server the demo starts itself, or against the user's URLs.
enum FetchDemo {
    /// How one URL went.
    private struct Fetch {
        let url: URL
        let outcome: Result<(Data, HTTPURLResponse), Error>
        let seconds: Double
    }

    /// The loopback server's paths the demo fetches: quick, large, slow, and one missing.
    private static let loopbackPaths = [
        "/", "/bytes/1024", "/bytes/65536", "/bytes/4194304", "/slow/300", "/slow/150",
        "/slow/250", "/slow/200", "/missing", "/bytes/16",
    ]

    static func run(_ options: Options, console: Console) throws {
        console.header("5. A fetch: TaskigURL and awaitAll(concurrency:)")
        guard options.urls.isEmpty else {
            console.line("   Fetching \(options.urls.count.counted("URL")), \(options.concurrency) at a time.")
            try fetchAndShow(options.urls, concurrency: options.concurrency, naming: \.absoluteString, console: console)
            return
        }
        let server = try LoopbackServer()
        defer { server.stop() }  // when a fetch throws; stopping twice is harmless
        console.line(
            "   Serving on http://127.0.0.1:\(server.port); fetching \(loopbackPaths.count.counted("URL")) from it,"
                + " \(options.concurrency) at a time.")
        let fetches = try fetchAndShow(
            loopbackPaths.map(server.url), concurrency: options.concurrency, naming: \.path, console: console)
        server.stop()
        console.line(
            "   The server saw at most \(console.bold("\(server.peakInFlight)")) requests at once, "
                + "and it is stopped now.")
        if let failure = fetches.first(where: { (try? $0.outcome.get()) == nil }) {
            throw DemoFailure(description: "fetching \(failure.url.path) from the loopback server failed")
        }
    }

    /// Fetches every URL, at most `concurrency` at once, timing each, and prints a line for each.
    @discardableResult
    private static func fetchAndShow(
        _ urls: [URL], concurrency: Int, naming name: (URL) -> String, console: Console
    ) throws -> [Fetch] {
        // A session of its own: URLSession.shared opens at most 6 connections per host, which
        // would cap the concurrency below what was asked for.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = concurrency
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let tasks = urls.map { url in
            // Straight-line code in a task that never fails: the outcome and time of each
            // request are kept, so one bad URL does not hide the others.
            ThrowableTask {
                let stopwatch = Stopwatch()
                let outcome = session.taskig.data(from: url).timeout(10).awaitResult()
                return Fetch(url: url, outcome: outcome, seconds: stopwatch.seconds)
            }
        }
        let stopwatch = Stopwatch()
        let fetches = try tasks.awaitAll(concurrency: concurrency)
        let seconds = stopwatch.seconds
        for fetch in fetches {
            let time = fetch.seconds.millisecondsText.leftPadded(to: 7)
            switch fetch.outcome {
            case .success(let (data, response)):
                let status = "\(response.statusCode)"
                let shown = response.statusCode < 400 ? console.green(status) : console.yellow(status)
                console.line("   \(shown)  \(data.count.byteCountText.leftPadded(to: 9))  \(time)  \(name(fetch.url))")
            case .failure(let error):
                console.line("   \(console.red("---"))  \("".leftPadded(to: 9))  \(time)  \(name(fetch.url))")
                console.line("        \(console.red(describe(error)))")
            }
        }
        let sum = fetches.reduce(0) { $0 + $1.seconds }
        console.line(
            "   \(fetches.count.counted("request")) in \(console.bold(seconds.millisecondsText));"
                + " one after another they add up to \(sum.millisecondsText).")
        return fetches
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case TaskigError.timedOut: return "TaskigError.timedOut (no answer within 10 s)"
        case let error as URLError: return "URLError \(error.code.rawValue): \(error.localizedDescription)"
        default: return String(describing: error)
        }
    }
}
