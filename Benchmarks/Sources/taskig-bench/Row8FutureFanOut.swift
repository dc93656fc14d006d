import Dispatch
import Foundation
import Synchronization
import Taskig

// Row 8: one Promise's future with 10,000 continuations, resolved once; against 10,000
// Swift `Task`s that each await one continuation-based async value that is then resolved.
// Both are timed from making the first waiter until the last one has run, on the main
// thread, with the value resolved right after the last waiter was made.

let fanOutCount = 10_000

/// Counts the continuations that ran and signals when the last one did.
final class FanOutCounter: Sendable {
    private let count = Atomic<Int>(0)
    private let target: Int
    let done = DispatchSemaphore(value: 0)

    init(target: Int) { self.target = target }

    func ran() {
        if count.add(1, ordering: .acquiringAndReleasing).newValue == target { done.signal() }
    }
}

/// Taskig: `p.future.async { _ in counter.ran() }` × `count`, then `p.resolve(1)`.
func taskigFutureAsyncFanOut(count: Int) -> Double {
    let promise = Promise<Int>()
    let counter = FanOutCounter(target: count)
    let elapsed = seconds {
        for _ in 0..<count {
            promise.future.async { result in
                precondition((try? result.get()) == 1)
                counter.ran()
            }
        }
        promise.resolve(1)
        counter.done.wait()
    }
    return elapsed / Double(count)
}

/// Taskig: `p.future.map { … }.start()` × `count`, then `p.resolve(1)`: each continuation a
/// composed task, started (hot) at once.
func taskigFutureMapStartFanOut(count: Int) -> (perContinuation: Double, peakThreads: Int, threadsAtStart: Int) {
    let promise = Promise<Int>()
    let counter = FanOutCounter(target: count)
    let sampler = ThreadSampler()
    var futures: [Future<Int>] = []
    futures.reserveCapacity(count)
    let elapsed = seconds {
        for _ in 0..<count {
            futures.append(
                promise.future.map { value in
                    counter.ran()
                    return value &+ 1
                }.start())
        }
        promise.resolve(1)
        counter.done.wait()
    }
    let peak = sampler.stop()
    precondition(futures.allSatisfy { (try? $0.result?.get()) == 2 || $0.result == nil })
    return (elapsed / Double(count), peak, sampler.atStart)
}

/// A value that async code can wait for and that is set once: a mutex-guarded list of
/// `CheckedContinuation`s, resumed all at once by `resolve` (what a small future for Swift
/// concurrency looks like without Taskig).
final class ContinuationFanOut: Sendable {
    private struct State {
        var value: Int?
        var waiters: [CheckedContinuation<Int, Never>] = []
    }
    private let state = Mutex(State())

    var value: Int {
        get async {
            await withCheckedContinuation { continuation in
                let ready: Int? = state.withLock { state in
                    if let value = state.value { return value }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    func resolve(_ value: Int) {
        let waiters = state.withLock { state in
            state.value = value
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }
}

/// The same fan-out as an actor (for information: an actor hop per waiter).
actor ActorFanOut {
    private var stored: Int?
    private var waiters: [CheckedContinuation<Int, Never>] = []

    func value() async -> Int {
        if let stored { return stored }
        return await withCheckedContinuation { waiters.append($0) }
    }

    func resolve(_ value: Int) {
        stored = value
        for waiter in waiters { waiter.resume(returning: value) }
        waiters = []
    }
}

/// Swift: `_Concurrency.Task { let v = await fanOut.value; counter.ran() }` × `count`, then
/// `fanOut.resolve(1)`, from the main thread.
func swiftTaskFanOut(count: Int) -> Double {
    let fanOut = ContinuationFanOut()
    let counter = FanOutCounter(target: count)
    let elapsed = seconds {
        for _ in 0..<count {
            _Concurrency.Task {
                let value = await fanOut.value
                precondition(value == 1)
                counter.ran()
            }
        }
        fanOut.resolve(1)
        counter.done.wait()
    }
    return elapsed / Double(count)
}

/// Swift with an actor: `_Concurrency.Task { await actor.value(); … }` × `count`, then a Task
/// that resolves the actor.
func swiftActorFanOut(count: Int) -> Double {
    let fanOut = ActorFanOut()
    let counter = FanOutCounter(target: count)
    let elapsed = seconds {
        for _ in 0..<count {
            _Concurrency.Task {
                let value = await fanOut.value()
                precondition(value == 1)
                counter.ran()
            }
        }
        _Concurrency.Task { await fanOut.resolve(1) }
        counter.done.wait()
    }
    return elapsed / Double(count)
}

func runFutureFanOutRow(into table: Table, repetitions: Int) {
    progress("Row 8: a future resolved with 10,000 continuations vs 10,000 Swift Tasks awaiting one value")
    _ = taskigFutureAsyncFanOut(count: 1_000)
    _ = taskigFutureMapStartFanOut(count: 1_000)
    _ = swiftTaskFanOut(count: 1_000)
    _ = swiftActorFanOut(count: 1_000)

    var async: [Double] = []
    var mapStart: [Double] = []
    var mapStartThreads: [Int] = []
    var threadsAtStart: [Int] = []
    var swift: [Double] = []
    var actor: [Double] = []
    for _ in 0..<repetitions {
        async.append(taskigFutureAsyncFanOut(count: fanOutCount))
        let started = taskigFutureMapStartFanOut(count: fanOutCount)
        mapStart.append(started.perContinuation)
        mapStartThreads.append(started.peakThreads)
        threadsAtStart.append(started.threadsAtStart)
        swift.append(swiftTaskFanOut(count: fanOutCount))
        actor.append(swiftActorFanOut(count: fanOutCount))
    }
    let a = median(async)
    let m = median(mapStart)
    let s = median(swift)
    let act = median(actor)
    table.add(
        TableRow(
            row:
                "8a. `Promise<Int>`, 10,000 × `p.future.async { _ in … }`, resolve, until all ran: per continuation vs 10,000 `_Concurrency.Task { await value }` on one `CheckedContinuation` fan-out",
            taskig: formatDuration(a),
            baseline: "\(formatDuration(s)) (same with an actor: \(formatDuration(act)))",
            ratio: speedup(s / a), goal: "cheaper (> 1×)", met: a < s))
    table.add(
        TableRow(
            row: "8b. same with 10,000 × `p.future.map { … }.start()` (hot composed tasks)",
            // The process's threads, those that earlier rows left idle included: row 7's hops
            // between serial queues leave about 60 of Dispatch's.
            taskig:
                "\(formatDuration(m)) (peak \(mapStartThreads.max()!) threads; \(threadsAtStart.min()!)–\(threadsAtStart.max()!) when a repetition began)",
            baseline: formatDuration(s),
            ratio: speedup(s / m), goal: "cheaper (> 1×)", met: m < s))
}
