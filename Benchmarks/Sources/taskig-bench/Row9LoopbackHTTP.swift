import BenchWorkloads
import Dispatch
import Foundation
import Taskig
import TaskigURL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Row 9: 1,000 GETs to a server on 127.0.0.1, 16 at a time, through TaskigURL's
// `awaitAll(concurrency: 16)` and through URLSession's own async `data(from:)` in a task
// group of width 16. Both use a new session per run, with the same configuration. The server
// counts the TCP connections it accepts. The goal compares the medians of connections per
// run: how many URLSession's own API opens depends on how fast its tasks start (a handful in
// a run whose tasks started slowly, hundreds in another), while 16 requests started together
// need 16.

let httpRequestCount = 1_000
let httpWidth = 16

/// What one run cost: wall time, and the CPU time and context switches of the whole process
/// (client and loopback server alike) from `getrusage`.
struct HTTPRunCost {
    var wall: Double
    var cpu: Double
    var contextSwitches: Int
}

/// Measures `body` with `getrusage(RUSAGE_SELF)` around it.
func measuringProcess(_ body: () -> Void) -> HTTPRunCost {
    func usage() -> rusage {
        var value = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &value)
        #else
            getrusage(RUSAGE_SELF, &value)
        #endif
        return value
    }
    func cpuSeconds(_ u: rusage) -> Double {
        Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }
    let before = usage()
    let wall = seconds(body)
    let after = usage()
    return HTTPRunCost(
        wall: wall, cpu: cpuSeconds(after) - cpuSeconds(before),
        contextSwitches: (after.ru_nvcsw + after.ru_nivcsw) - (before.ru_nvcsw + before.ru_nivcsw))
}

/// The configuration both sides use: ephemeral, 16 connections per host.
func benchSession() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = httpWidth
    return URLSession(configuration: configuration)
}

/// Seconds for one run: TaskigURL, `urls.map { session.taskig.data(from: $0) }.awaitAll(concurrency: 16)`,
/// from the main thread.
func taskigURLGets(_ urls: [URL]) -> HTTPRunCost {
    let session = benchSession()
    defer { session.finishTasksAndInvalidate() }
    var bodies: [Data] = []
    let elapsed = measuringProcess {
        let tasks = urls.map { session.taskig.data(from: $0) }
        bodies = try! tasks.awaitAll(concurrency: httpWidth).map(\.0)
    }
    checkBodies(bodies)
    return elapsed
}

/// Seconds for one run: URLSession's async `data(from:)` in a task group that keeps 16
/// requests in flight. With `seenByTaskig`, on a session whose `taskig` was asked for once
/// (which on Linux makes it keep its connections open, see TaskigURL's `ConnectionCache`);
/// for the diagnostics, not the table.
func urlSessionAsyncGets(_ urls: [URL], seenByTaskig: Bool = false) -> HTTPRunCost {
    let session = benchSession()
    if seenByTaskig { _ = session.taskig }
    defer { session.finishTasksAndInvalidate() }
    nonisolated(unsafe) var bodies: [Data] = []
    let elapsed = measuringProcess {
        bodies = blockingOnSwiftConcurrency {
            try! await withThrowingTaskGroup(of: (Int, Data).self) { group in
                var results = [Data](repeating: Data(), count: urls.count)
                var next = 0
                while next < min(httpWidth, urls.count) {
                    let index = next
                    group.addTask { (index, try await session.data(from: urls[index]).0) }
                    next += 1
                }
                while let (index, data) = try await group.next() {
                    results[index] = data
                    if next < urls.count {
                        let index = next
                        group.addTask { (index, try await session.data(from: urls[index]).0) }
                        next += 1
                    }
                }
                return results
            }
        }
    }
    checkBodies(bodies)
    return elapsed
}

/// Seconds for one run: URLSession's `dataTask(with:completionHandler:)` (the call TaskigURL
/// makes), 16 in flight, gated by a semaphore; for the diagnostics, not the table.
func urlSessionCompletionHandlerGets(_ urls: [URL]) -> HTTPRunCost {
    let session = benchSession()
    defer { session.finishTasksAndInvalidate() }
    let bodies = Box([Data](repeating: Data(), count: urls.count))
    let lock = NSLock()
    let elapsed = measuringProcess {
        let gate = DispatchSemaphore(value: httpWidth)
        let group = DispatchGroup()
        for (index, url) in urls.enumerated() {
            gate.wait()
            group.enter()
            session.dataTask(with: url) { data, _, _ in
                lock.withLock { bodies.value[index] = data ?? Data() }
                gate.signal()
                group.leave()
            }.resume()
        }
        group.wait()
    }
    checkBodies(bodies.value)
    return elapsed
}

/// A bare task around `dataTask(with:completionHandler:)` that completes on URLSession's
/// delegate queue, with none of TaskigURL's bookkeeping (cancellation slots, the hop to a
/// serial queue of its own); for the diagnostics, to tell TaskigURL's cost from awaitAll's.
struct BareDataTask: ThrowableTaskType {
    let session: URLSession
    let url: URL
    var executionQueue: DispatchQueue { .global() }
    func action(completion: @escaping @Sendable (Result<Data, Error>) -> Void) {
        session.dataTask(with: url) { data, _, error in
            completion(Result { if let error { throw error } else { return data ?? Data() } })
        }.resume()
    }
}

/// Seconds for one run of `BareDataTask`s under `awaitAll(concurrency: 16)`.
func bareTaskGets(_ urls: [URL]) -> HTTPRunCost {
    let session = benchSession()
    defer { session.finishTasksAndInvalidate() }
    var bodies: [Data] = []
    let cost = measuringProcess {
        bodies = try! urls.map { BareDataTask(session: session, url: $0) }.awaitAll(concurrency: httpWidth)
    }
    checkBodies(bodies)
    return cost
}

func checkBodies(_ bodies: [Data]) {
    precondition(bodies.count == httpRequestCount, "expected \(httpRequestCount) bodies, got \(bodies.count)")
    for (index, body) in bodies.enumerated() {
        precondition(String(decoding: body, as: UTF8.self) == String(index), "body \(index) is wrong")
    }
}

func runLoopbackHTTPRow(into table: Table, repetitions: Int) {
    progress("Row 9: 1,000 loopback GETs at concurrency 16, TaskigURL vs URLSession async")
    let server: BenchHTTPServer
    do {
        server = try BenchHTTPServer()
    } catch {
        fatalError("row 9 could not start its loopback server: \(error)")
    }
    defer { server.stop() }
    let urls = (0..<httpRequestCount).map { server.url("/item?id=\($0)") }

    // Warm both paths once (URLSession's and curl's threads, Taskig's workers).
    _ = taskigURLGets(urls)
    _ = urlSessionAsyncGets(urls)

    var taskig: [HTTPRunCost] = []
    var swift: [HTTPRunCost] = []
    var taskigConnections: [Int] = []
    var swiftConnections: [Int] = []
    for _ in 0..<repetitions {
        var before = server.counts.connections
        taskig.append(taskigURLGets(urls))
        taskigConnections.append(server.counts.connections - before)
        before = server.counts.connections
        swift.append(urlSessionAsyncGets(urls))
        swiftConnections.append(server.counts.connections - before)
    }
    let t = median(taskig.map(\.wall))
    let s = median(swift.map(\.wall))
    let n = Double(httpRequestCount)
    func describe(_ runs: [HTTPRunCost], _ connections: [Int]) -> String {
        let sorted = connections.sorted()
        let wall = median(runs.map(\.wall))
        let cpu = median(runs.map(\.cpu))
        let switches = median(runs.map { Double($0.contextSwitches) })
        return
            "\(formatDuration(wall)) (\(formatDuration(wall / n)) per GET; process CPU \(formatDuration(cpu / n)) and "
            + String(format: "%.0f", switches / n)
            + " context switches per GET; \(sorted.first!)–\(sorted.last!) TCP connections per run)"
    }
    table.add(
        TableRow(
            row:
                "9. 1,000 GETs to 127.0.0.1 (keep-alive server), 16 at a time, new ephemeral session per run (`httpMaximumConnectionsPerHost = 16`): TaskigURL `awaitAll(concurrency: 16)` vs URLSession async `data(from:)` in a TaskGroup of width 16",
            taskig: describe(taskig, taskigConnections),
            baseline: describe(swift, swiftConnections),
            ratio: t <= s ? speedup(s / t) : "\(formatRatio(t / s)) the time",
            goal: "≤ 1.05× the time, and no more TCP connections per run (medians)",
            met: t <= 1.05 * s && median(taskigConnections.map(Double.init)) <= median(swiftConnections.map(Double.init))
        ))
}
