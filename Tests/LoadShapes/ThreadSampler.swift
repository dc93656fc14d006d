import Foundation
import Synchronization

/// Samples the process's threads every millisecond on a thread of its own: the total, from
/// `/proc/self/status`, and Taskig's workers, by their name, from `/proc/self/task`.
final class ThreadSampler: Sendable {
    private let peakTotal = Atomic(0)
    private let peakWorkers = Atomic(0)
    private let stopped = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            var tick = 0
            while stopped.wait(timeout: .now() + .milliseconds(1)) == .timedOut {
                peakTotal.max(Self.totalThreads(), ordering: .relaxed)
                // Reading every thread's name is slower; every fifth sample is enough.
                if tick % 5 == 0 { peakWorkers.max(Self.taskigThreads(), ordering: .relaxed) }
                tick += 1
            }
            ended.signal()
        }
        thread.name = "load-sampler"
        thread.start()
    }

    /// Stops sampling and returns the peaks: all threads, and Taskig's.
    func stop() -> (total: Int, taskig: Int) {
        stopped.signal()
        ended.wait()
        return (
            max(peakTotal.load(ordering: .relaxed), Self.totalThreads()),
            max(peakWorkers.load(ordering: .relaxed), Self.taskigThreads())
        )
    }

    static func totalThreads() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("Threads:") {
            return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }

    /// Threads whose name starts with "taskig.": Taskig's own (this program's own threads are
    /// called "taskig-load-shapes", truncated).
    static func taskigThreads() -> Int {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
        return tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix("taskig.")
        }.count
    }
}
