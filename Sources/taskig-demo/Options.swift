import Foundation

/// What the user asked the demo to do.
struct Options {
    /// The directory whose files the batch counts.
    var directory: URL
    /// Whether `directory` is the built-in workload, this package's Sources (rather than one
    /// the user named, or the working directory when the Sources are gone).
    var isBuiltInDirectory: Bool
    /// URLs to fetch instead of the loopback server's; empty means use the loopback server.
    var urls: [URL] = []
    /// How many files or URLs run at once.
    var concurrency = 4
    /// An extra wait before each file is read, in seconds; `nil` means the default for the directory.
    var latency: Double?

    /// The wait before each file is read: by default 15 ms for the built-in workload, where
    /// reading is so quick that there would be nothing for concurrency to overlap, and none
    /// for a directory the user named.
    var effectiveLatency: Double { latency ?? (isBuiltInDirectory ? 0.015 : 0) }

    /// What the command line asks for.
    enum Command {
        case run(Options)
        case help
    }

    /// A command line the demo cannot run, with the message that says why.
    struct UsageError: Error {
        let message: String
    }

    /// The usage lines, printed with every complaint about the arguments.
    static let synopsis = """
        usage: taskig-demo [DIRECTORY] [--urls URL ...] [--concurrency N] [--latency MS]
               taskig-demo --help
        """

    /// The text of `--help`.
    static let help = """
        taskig-demo shows Taskig's main capabilities in a few seconds, each on a small workload
        that needs nothing from outside this machine. Every wait blocks the main thread.

        \(synopsis)

        With no arguments it runs five sections:
          1. batch         counts the words of this package's Sources with
                           awaitAllResults(concurrency:progress:), one file at a time and then N
                           at a time, then takes the first three to finish from completions()
          2. race          awaitFirst() over three tasks of different speeds; the losers' runs are cancelled
          3. timeout       await(timeout:) and .timeout(_:) on a slow task
          4. cancellation  a main-queue timer cancels a running task; its waiter returns at once
          5. fetch         starts an HTTP server on 127.0.0.1 and fetches from it with TaskigURL
                           and awaitAll(concurrency:), then stops the server

        Options:
          DIRECTORY          count the files under DIRECTORY instead of this package's Sources
          --urls URL ...     fetch these http(s) URLs instead of the loopback server's (the list
                             ends at the next option)
          --concurrency N    how many files or URLs run at once (default 4)
          --latency MS       wait MS milliseconds before reading each file, standing in for slow
                             storage (default 15 for this package's Sources, 0 for a DIRECTORY)
          -h, --help         print this help

        Examples:
          taskig-demo                                   the five sections on built-in workloads
          taskig-demo ~/src --concurrency 8             count your own files, 8 at a time
          taskig-demo --urls https://swift.org/ https://www.example.com/

        On a terminal the output has bold headers, colours and a live progress line; piped, it is
        plain text. NO_COLOR=1 turns the bold and the colours off on a terminal too.

        Exit status: 0 when every section ran, 1 when one failed, 2 for bad arguments.
        """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        let builtIn = builtInDirectory()
        var options = Options(directory: builtIn ?? URL(fileURLWithPath: "."), isBuiltInDirectory: builtIn != nil)
        var namedDirectory = false
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            // `--name=value` is read as `--name value`.
            var inlineValue: String?
            var name = argument
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst() else { throw UsageError(message: "\(name) needs a value") }
                return next
            }
            switch name {
            case "--help", "-h":
                return .help
            case "--concurrency":
                let text = try value()
                guard let number = Int(text), number >= 1 else {
                    throw UsageError(message: "--concurrency needs a whole number of at least 1, not '\(text)'")
                }
                options.concurrency = number
            case "--latency":
                let text = try value()
                guard let milliseconds = Double(text), milliseconds >= 0, milliseconds <= 10_000 else {
                    throw UsageError(message: "--latency needs a number of milliseconds from 0 to 10000, not '\(text)'")
                }
                options.latency = milliseconds / 1000
            case "--urls":
                if let inlineValue { remaining.insert(inlineValue, at: remaining.startIndex) }
                while let next = remaining.first, !next.hasPrefix("-") {
                    options.urls.append(try webURL(next))
                    remaining.removeFirst()
                }
                guard !options.urls.isEmpty else { throw UsageError(message: "--urls needs at least one URL") }
            default:
                guard !argument.hasPrefix("-") else { throw UsageError(message: "unknown option '\(argument)'") }
                guard !namedDirectory else {
                    throw UsageError(message: "one DIRECTORY at most; '\(argument)' is a second one")
                }
                options.directory = try existingDirectory(argument)
                options.isBuiltInDirectory = false
                namedDirectory = true
            }
        }
        return .run(options)
    }

    private static func webURL(_ text: String) throws(UsageError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else { throw UsageError(message: "'\(text)' is not an http or https URL") }
        return url
    }

    private static func existingDirectory(_ path: String) throws(UsageError) -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw UsageError(message: "no such directory: \(path)")
        }
        guard isDirectory.boolValue else { throw UsageError(message: "not a directory: \(path)") }
        return URL(fileURLWithPath: path)
    }

    /// This package's Sources, found from where this file was compiled so that the demo finds
    /// them from any working directory; `nil` when they are gone.
    private static func builtInDirectory() -> URL? {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: sources.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return sources
        }
        return nil
    }
}
