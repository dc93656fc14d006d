import BenchWorkloads
import Dispatch
import Foundation
import HeapPeak
import Synchronization

// Clocks, statistics and the process-level probes every row uses.

/// Monotonic nanoseconds.
@inline(__always)
func nanoseconds() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// Seconds spent in `body`.
@inline(__always)
func seconds(_ body: () -> Void) -> Double {
    let start = nanoseconds()
    body()
    return Double(nanoseconds() - start) / 1e9
}

func median(_ values: [Double]) -> Double {
    precondition(!values.isEmpty, "median of no values")
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Runs `body` `repetitions` times and returns the median of what it measured.
func medianOf(_ repetitions: Int, _ body: () -> Double) -> Double {
    median((0..<repetitions).map { _ in body() })
}

/// Runs `body` on a new (non-main) thread and waits for its result.
func onFreshThread<T>(_ body: @escaping @Sendable () -> T) -> T {
    let result = Box<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        result.value = body()
        done.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    done.wait()
    return result.value!
}

/// Runs async `body` on Swift's cooperative pool and blocks the calling thread until it ends.
func blockingOnSwiftConcurrency<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = Box<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    _Concurrency.Task.detached {
        result.value = await body()
        done.signal()
    }
    done.wait()
    return result.value!
}

/// Reads a number field such as `Threads:` or `VmHWM:` from /proc/self/status. Uses only a
/// stack buffer, so it can run while the heap is being counted or threads are sampled.
func procStatusField(_ name: StaticString) -> Int {
    let fd = open("/proc/self/status", O_RDONLY)
    guard fd >= 0 else { return -1 }
    defer { close(fd) }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8192) { buffer -> Int in
        var length = 0
        while length < buffer.count {
            let n = read(fd, buffer.baseAddress! + length, buffer.count - length)
            if n <= 0 { break }
            length += n
        }
        let key = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        var lineStart = 0
        while lineStart < length {
            var matches = lineStart + key.count <= length
            var k = 0
            while matches && k < key.count {
                if buffer[lineStart + k] != key[k] { matches = false }
                k += 1
            }
            if matches {
                var i = lineStart + key.count
                var value = 0
                var sawDigit = false
                while i < length && buffer[i] != UInt8(ascii: "\n") {
                    let c = buffer[i]
                    if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") {
                        value = value * 10 + Int(c - UInt8(ascii: "0"))
                        sawDigit = true
                    } else if sawDigit {
                        break
                    }
                    i += 1
                }
                return value
            }
            while lineStart < length && buffer[lineStart] != UInt8(ascii: "\n") { lineStart += 1 }
            lineStart += 1
        }
        return -1
    }
}

func currentThreadCount() -> Int { procStatusField("Threads:") }

/// How many of the process's threads are Taskig's workers, by the name they give themselves.
func currentTaskigWorkerCount() -> Int {
    let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return threads.count { thread in
        (try? String(contentsOfFile: "/proc/self/task/\(thread)/comm", encoding: .utf8))?.hasPrefix("taskig.worker")
            ?? false
    }
}

/// Samples the process's thread count on a thread of its own, about every `interval`
/// microseconds, and keeps the highest count seen (the sampler itself included); when asked
/// to, also the most of Taskig's workers seen at the highest counts.
final class ThreadSampler: @unchecked Sendable {
    private let stopping = Atomic<Bool>(false)
    private let highest = Atomic<Int>(0)
    private let highestWorkers = Atomic<Int>(0)
    private let stopped = DispatchSemaphore(value: 0)
    /// The process's threads before sampling began (the sampler not among them): in a process
    /// that ran other rows, idle threads of Dispatch's and of Taskig's pools that have not
    /// exited yet.
    let atStart = currentThreadCount()

    /// - Parameter countsTaskigWorkers: names the threads at each sample that reaches the
    ///   highest count so far (reading every thread's name at every sample would slow the
    ///   process it measures).
    init(intervalMicroseconds: UInt32 = 1000, countsTaskigWorkers: Bool = false) {
        let thread = Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                let count = currentThreadCount()
                if count >= highest.load(ordering: .relaxed) {
                    highest.store(count, ordering: .relaxed)
                    if countsTaskigWorkers {
                        let workers = currentTaskigWorkerCount()
                        if workers > highestWorkers.load(ordering: .relaxed) {
                            highestWorkers.store(workers, ordering: .relaxed)
                        }
                    }
                }
                usleep(intervalMicroseconds)
            }
            stopped.signal()
        }
        thread.start()
        while highest.load(ordering: .relaxed) == 0 { usleep(100) }
    }

    /// Stops sampling (after one last sample) and returns the peak.
    func stop() -> Int {
        let last = currentThreadCount()
        stopping.store(true, ordering: .relaxed)
        stopped.wait()
        return max(last, highest.load(ordering: .relaxed))
    }

    /// The most Taskig workers seen at the highest counts; only with `countsTaskigWorkers`,
    /// once stopped.
    var peakTaskigWorkers: Int { highestWorkers.load(ordering: .relaxed) }
}

/// The exact heap peak of a region (see HeapPeak.c).
enum HeapCounter {
    struct Reading {
        /// Bytes still allocated at the end, net of frees, relative to the start.
        var liveBytes: Int
        /// The highest net allocation at any moment of the region.
        var peakBytes: Int
        var allocations: Int
    }

    static func measure(_ body: () -> Void) -> Reading {
        heap_peak_start()
        body()
        heap_peak_stop()
        return Reading(
            liveBytes: Int(heap_peak_live_bytes()),
            peakBytes: Int(heap_peak_peak_bytes()),
            allocations: Int(heap_peak_allocation_count())
        )
    }

    /// Whether this platform counts the heap at all (only with glibc: see HeapPeak.c).
    static var isAvailable: Bool { heap_peak_is_available() != 0 }

    static let unavailableReason =
        "HeapPeak counts the heap by standing in for glibc's malloc, and this platform has no glibc"

    /// Adds a line that says that `rows` were left out, and why.
    static func noteLeftOut(_ rows: String, in table: Table) {
        let reason = "left out: \(unavailableReason)"
        table.add(TableRow(row: rows, taskig: reason, baseline: "—", ratio: "—", goal: "—", met: nil))
    }

    /// Whether malloc calls from the Swift runtime reach the counting wrappers.
    static var isActive: Bool {
        // swift_slowAlloc in libswiftCore calls malloc through the dynamic linker.
        let reading = measure {
            let pointer = UnsafeMutablePointer<Int>.allocate(capacity: 64)
            pointer.deallocate()
        }
        return reading.allocations > 0
    }
}

// MARK: - Child processes

/// Rows that need a clean process (thread counts, peak memory, a pool that must start small)
/// run in a child: this same executable, started with `child NAME ARGS…`. The child prints one
/// line `RESULT key=value …`, which the parent reads.
enum Child {
    /// Runs a child and returns the values of its `RESULT` line; a child still running after
    /// `timeout` seconds is terminated (and then printed none).
    ///
    /// - Parameter executable: another program that prints such a line (row 13d's Swift
    ///   script), started with `arguments` alone; by default this executable as a child.
    static func run(_ arguments: [String], timeout: TimeInterval = 120, executable: URL? = nil) -> [String: Double] {
        let process = Process()
        process.executableURL = executable ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = executable == nil ? ["child"] + arguments : arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
        } catch {
            fatalError("could not start a child process for \(arguments): \(error)")
        }
        let watchdog = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        let text = String(decoding: output, as: UTF8.self)
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("RESULT") }) else {
            fatalError("child \(arguments) printed no RESULT line; it printed: \(text)")
        }
        var values: [String: Double] = [:]
        for field in line.split(separator: " ").dropFirst() {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }

    /// Prints the RESULT line a child reports back, and flushes it.
    static func report(_ values: KeyValuePairs<String, Double>) {
        report(values.map { ($0.key, $0.value) })
    }

    /// Prints the RESULT line a child reports back, and flushes it.
    static func report(_ values: [String: Double]) {
        report(values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    private static func report(_ fields: [(String, Double)]) {
        print("RESULT " + fields.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        fflush(nil)
    }
}
