import Foundation

/// What the user asked the demo to do.
struct Options {
    var directory: URL
    var concurrency = 8

    static let usage = """
        usage: taskig-demo [DIRECTORY] [--concurrency N]

        Counts the lines and words of every file under DIRECTORY (default: this package's
        Sources, or the current directory) with Taskig's awaitAll(concurrency:), first one
        file at a time and then N at a time, and prints what it found and how long each took.
        """

    /// Parses `arguments` (without the program name); `nil` means print the usage.
    static func parse(_ arguments: [String]) -> Options? {
        var options = Options(directory: defaultDirectory())
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h":
                return nil
            case "--concurrency":
                guard let value = remaining.popFirst().flatMap(Int.init), value >= 1 else { return nil }
                options.concurrency = value
            default:
                options.directory = URL(fileURLWithPath: argument)
            }
        }
        return options
    }

    private static func defaultDirectory() -> URL {
        let sources = URL(fileURLWithPath: "Sources")
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: sources.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return sources
        }
        return URL(fileURLWithPath: ".")
    }
}
