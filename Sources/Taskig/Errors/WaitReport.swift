import Dispatch
import Foundation

/// A snapshot of every thread parked in a Taskig wait, of Taskig's threads, and of the
/// collection waits in progress: what a hung program is waiting for.
///
/// Each wait names its thread, where it was called, what it waits for, for how long, and
/// where that work is now: running on a thread, queued, waiting for a callback, or itself
/// waiting (and where). The report is weakly consistent, like Kotlin's
/// `DebugProbes.dumpCoroutines()`: each wait appears once, in a state it was in during the
/// call. Its ``description`` is the text; the fields are there for a program that logs it
/// (`os_log`, a crash reporter) or a tool that reads it.
///
/// ```swift
/// signal(SIGUSR1) { _ in print(WaitReport.current()) }   // from a debugger, or a signal
/// ```
///
/// With `TASKIG_STALL_REPORT=<seconds>` in the environment, a wait still parked after that
/// long prints the report to standard error by itself (see <doc:Troubleshooting>).
public struct WaitReport: Sendable, CustomStringConvertible {
    /// A thread, as the system and debuggers name it.
    public struct ThreadIdentity: Sendable, Hashable, CustomStringConvertible {
        /// The kernel's thread id on Linux (`/proc/<pid>/task/<id>`), `pthread_threadid_np` on
        /// Darwin.
        public let id: UInt64
        /// The thread's name: "main", "taskig.worker", or what the program named it; may be empty.
        public let name: String

        /// The thread `id`, named `name`.
        public init(id: UInt64, name: String) {
            self.id = id
            self.name = name
        }

        /// `thread 1234 "taskig.worker"`.
        public var description: String { name.isEmpty ? "thread \(id)" : "thread \(id) \"\(name)\"" }
    }

    /// Where the work a wait waits for is now.
    public enum Whereabouts: Sendable, Equatable, CustomStringConvertible {
        /// Its code runs on `thread`, and has for `seconds`.
        case running(thread: ThreadIdentity, seconds: TimeInterval)
        /// It waits itself, on `thread`, in the wait called at `callSite` (listed in the report).
        case waiting(thread: ThreadIdentity, callSite: CallSite)
        /// It has not started: it waits on `queue` (a queue's label, or "Taskig's threads").
        case queued(queue: String)
        /// Its code returned, and the callback that reports its outcome has not been called.
        case waitingForCallback
        /// It waits, holding no thread, for another run: a continuation waiting for a future,
        /// or for the task its step started.
        case waitingForAnotherRun
        /// Its outcome is known; the waiter is about to wake.
        case finished
        /// The tasks of a collection wait, run by its lanes (see ``WaitReport/collections``).
        case collection
        /// Taskig cannot tell: the wait is for several tasks, or for work it does not run.
        case unknown

        /// The whereabouts in a few words.
        public var description: String {
            switch self {
            case .running(let thread, let seconds): return "running on \(thread) for \(Self.format(seconds))"
            case .waiting(let thread, let callSite): return "itself waiting, on \(thread) at \(callSite)"
            case .queued(let queue): return "not started: queued on \(queue)"
            case .waitingForCallback: return "waiting for its callback (completion handler) to be called"
            case .waitingForAnotherRun: return "waiting for another run, holding no thread"
            case .finished: return "finished"
            case .collection: return "on the collection's lanes (see below)"
            case .unknown: return "unknown"
            }
        }

        static func format(_ seconds: TimeInterval) -> String {
            seconds < 1 ? "\(Int((seconds * 1000).rounded())) ms" : String(format: "%.1f s", seconds)
        }
    }

    /// One thread parked in a Taskig wait.
    public struct Wait: Sendable, CustomStringConvertible {
        /// The waiting thread.
        public let thread: ThreadIdentity
        /// Where the wait was called.
        public let callSite: CallSite
        /// What it waits for: the task's type and queue, a future and where it was started, or
        /// a collection wait.
        public let waitsFor: String
        /// How long it has waited, in seconds.
        public let seconds: TimeInterval
        /// Where that work is now.
        public let work: Whereabouts
        /// Whether the wait has a deadline (`await(timeout:)`), and so will end by itself.
        public let hasDeadline: Bool
        /// Whether the waiting thread runs a Swift task: a blocking wait there holds a thread of
        /// Swift's cooperative pool, which async code may need to finish the work.
        public let isInsideSwiftTask: Bool
        /// The queue the waiting thread holds, and serves while it waits, when Taskig knows it.
        public let heldQueue: String?
        /// Advice for this wait, when the report can tell why it does not end.
        public let note: String?

        /// The wait in one paragraph.
        public var description: String {
            var text =
                "\(thread) waits at \(callSite) for \(waitsFor), for \(Whereabouts.format(seconds)); "
                + "the work is \(work)"
            if hasDeadline { text += "; the wait has a deadline" }
            if let heldQueue { text += "; it holds queue '\(heldQueue)'" }
            if isInsideSwiftTask {
                text += "; it blocks a thread of Swift's cooperative pool (a blocking wait inside a Swift task)"
            }
            if let note { text += ".\n    \(note)" }
            return text
        }
    }

    /// Taskig's own threads (see <doc:WaitingSafely>).
    public struct Workers: Sendable, CustomStringConvertible {
        /// Threads alive, busy or idle.
        public let threads: Int
        /// Threads running a job.
        public let busy: Int
        /// Threads parked, waiting for a job.
        public let idle: Int
        /// Jobs waiting for a thread.
        public let queuedJobs: Int
        /// The most threads Taskig runs.
        public let limit: Int

        /// The counts in one line.
        public var description: String {
            "Taskig's threads: \(threads) of at most \(limit) (\(busy) busy, \(idle) idle), \(queuedJobs) jobs queued"
        }
    }

    /// A collection wait in progress (`awaitAll`, `awaitFirst`, a `completions` loop, …),
    /// whether or not its caller is parked.
    public struct CollectionWait: Sendable, CustomStringConvertible {
        /// Where the wait was called.
        public let callSite: CallSite
        /// Which wait: `awaitAll`, `awaitAllResults`, `awaitFirst`, `awaitAny`, `completions`.
        public let operation: String
        /// The most tasks it runs at once.
        public let concurrency: Int
        /// Its lanes: threads running its tasks, or tasks waiting for their callbacks.
        public let lanes: Int
        /// Tasks started and not settled.
        public let inFlight: Int
        /// Tasks settled.
        public let settled: Int
        /// Tasks in all.
        public let total: Int
        /// How long the wait has lasted, in seconds.
        public let seconds: TimeInterval

        /// The wait in one line.
        public var description: String {
            "\(operation) at \(callSite), for \(Whereabouts.format(seconds)): \(settled) of \(total) settled, "
                + "\(inFlight) in flight on \(lanes) lane\(lanes == 1 ? "" : "s"), concurrency \(concurrency)"
        }
    }

    /// When the report was taken.
    public let date: Date
    /// Every thread parked in a Taskig wait, the longest waiting first.
    public let waits: [Wait]
    /// Taskig's threads.
    public let workers: Workers
    /// The collection waits in progress.
    public let collections: [CollectionWait]

    /// The report as text, as the stall monitor prints it.
    public var description: String {
        var lines = ["Taskig wait report, \(date): \(waits.count) waiting"]
        lines += waits.map { "  - \($0)" }
        lines.append("  \(workers)")
        if !collections.isEmpty {
            lines.append("  Collection waits in progress:")
            lines += collections.map { "  - \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
