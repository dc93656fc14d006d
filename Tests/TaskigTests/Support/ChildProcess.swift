import Foundation
import Testing

/// Runs one of the package's own executables (built next to the test bundle) with a
/// watchdog, and returns what it printed and whether it exited cleanly. A hang is killed and
/// fails the test.
func runPackageExecutable(
    _ name: String,
    arguments: [String] = [],
    timeout: Double = 60,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> (output: String, exitedCleanly: Bool) {
    let executable: URL = try #require(packageExecutable(name), "\(name) was not built", sourceLocation: sourceLocation)
    let (output, exitedCleanly, killed) = try await offTheCooperativePool { () throws -> (String, Bool, Bool) in
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let killedByWatchdog = LockedValue(false)
        let watchdog = DispatchWorkItem {
            killedByWatchdog.set(true)
            process.terminate()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        let exitedCleanly = process.terminationReason == .exit && process.terminationStatus == 0
        return (String(decoding: data, as: UTF8.self), exitedCleanly, killedByWatchdog.value)
    }
    if killed {
        Issue.record("hung: \(name) \(arguments) did not finish within \(timeout) s", sourceLocation: sourceLocation)
    }
    return (output, exitedCleanly)
}

/// The package's executables are built next to the test bundle.
func packageExecutable(_ name: String) -> URL? {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory.deleteLastPathComponent()
    }
    return nil
}

/// The number printed after `key` on a line of its own (`key value`), if any.
func measurement(_ key: String, in output: String) -> Double? {
    for line in output.split(separator: "\n") where line.hasPrefix(key + " ") {
        return Double(line.dropFirst(key.count + 1))
    }
    return nil
}
