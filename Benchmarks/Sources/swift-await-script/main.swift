// Row 13d's baseline (issue 19): a command-line program whose top-level code awaits a Swift
// task 20,000 times, as a script would: `_ = await Task.detached { 1 }.value`. It times the
// loop and counts the process's threads the way taskig-bench's child
// `main-thread-task-awaits` does for Taskig's `Task { 1 }.await()` on the main thread: a
// sampling thread started first, the count from /proc/self/status before and after the loop,
// and the sampler's peak. Prints one line, `RESULT perWait=… before=… after=… peak=…`.
//
//   .build/release/swift-await-script [COUNT]
import Dispatch
import Foundation
import Synchronization

/// The `Threads:` field of /proc/self/status.
func threadCount() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("Threads:") {
        return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? -1
    }
    return -1
}

/// Samples the thread count about every millisecond on a thread of its own (counted too), and
/// keeps the highest count seen.
final class Sampler: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let highest = Atomic<Int>(0)
    private let stopped = DispatchSemaphore(value: 0)

    init() {
        Thread.detachNewThread { [self] in
            while !stopping.load(ordering: .relaxed) {
                let count = threadCount()
                if count > highest.load(ordering: .relaxed) { highest.store(count, ordering: .relaxed) }
                usleep(1000)
            }
            stopped.signal()
        }
        while highest.load(ordering: .relaxed) == 0 { usleep(100) }
    }

    /// Stops sampling and returns the peak.
    func stop() -> Int {
        let last = threadCount()
        stopping.store(true, ordering: .relaxed)
        stopped.wait()
        return max(last, highest.load(ordering: .relaxed))
    }
}

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1])! : 20_000
let sampler = Sampler()
let before = threadCount()
let start = DispatchTime.now()
for _ in 0..<count {
    _ = await Task.detached { 1 }.value
}
let perWait = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 / Double(count)
let after = threadCount()
let peak = sampler.stop()
print("RESULT after=\(Double(after)) before=\(Double(before)) peak=\(Double(peak)) perWait=\(perWait)")
fflush(nil)
