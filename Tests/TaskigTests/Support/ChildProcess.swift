import Foundation
import Testing

/// Runs one of the package's own executables (built next to the test bundle) with a
/// watchdog, and returns what it printed and whether it exited cleanly. A hang is killed and
/// fails the test.
///
/// - Parameters:
///   - environment: variables added to this process's environment for the child.
///   - includesStandardError: whether what the child writes to standard error is part of the
///     output, interleaved as it came.
func runPackageExecutable(
    _ name: String,
    arguments: [String] = [],
    environment: [String: String] = [:],
    includesStandardError: Bool = false,
    timeout: Double = 60,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> (output: String, exitedCleanly: Bool) {
    let executable: URL = try #require(packageExecutable(name), "\(name) was not built", sourceLocation: sourceLocation)
    let (output, exitedCleanly, killed) = try await offTheCooperativePool { () throws -> (String, Bool, Bool) in
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        let pipe = Pipe()
        process.standardOutput = pipe
        if includesStandardError { process.standardError = pipe }
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

/// How a child process ended: what it wrote to its standard error, and the signal that ended
/// it, if one did.
struct ChildProcessEnd: Sendable {
    let errorOutput: String
    let signal: Int32?
}

/// Runs one of the package's own executables, which is expected to die, with `environment`
/// added to this process's, and a watchdog; returns what it wrote to its standard error and
/// how it ended. Its standard error goes to a file, which a long report cannot fill up.
func runDyingPackageExecutable(
    _ name: String,
    arguments: [String] = [],
    environment: [String: String] = [:],
    timeout: Double = 60,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> ChildProcessEnd {
    let executable: URL = try #require(packageExecutable(name), "\(name) was not built", sourceLocation: sourceLocation)
    let (end, killed) = try await offTheCooperativePool { () throws -> (ChildProcessEnd, Bool) in
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("taskig-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        let killedByWatchdog = LockedValue(false)
        let watchdog = DispatchWorkItem {
            killedByWatchdog.set(true)
            process.terminate()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        process.waitUntilExit()
        watchdog.cancel()
        let errorOutput = String(decoding: try Data(contentsOf: errorFile), as: UTF8.self)
        let signal = process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
        return (ChildProcessEnd(errorOutput: errorOutput, signal: signal), killedByWatchdog.value)
    }
    if killed {
        Issue.record("hung: \(name) \(arguments) did not finish within \(timeout) s", sourceLocation: sourceLocation)
    }
    return end
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
