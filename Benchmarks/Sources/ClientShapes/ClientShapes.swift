// The shapes of issue 12, written as a client writes them: in Swift 5 language mode, with
// Taskig's public API only, the tasks, links and futures made and dropped inside what is
// timed. Each function returns seconds per item; its baseline is beside it.
import Dispatch
import Foundation
import Taskig

/// `count` capturing closures, made before the timing, as an app's work items would be.
public func capturingClosures(_ count: Int) -> [() -> Int] {
    (0..<count).map { i in { i &* 2 } }
}

/// Seconds per task: the closures wrapped in `ThrowableTask(action:)`, awaited with
/// `awaitAll(concurrency: 50)`, and dropped.
public func throwableTasksAwaitAll(_ closures: [() -> Int]) -> Double {
    let start = DispatchTime.now()
    do {
        let tasks = closures.map { ThrowableTask(action: $0) }
        let values = try! tasks.awaitAll(concurrency: 50)
        precondition(values.count == closures.count && values.last == (closures.count - 1) &* 2)
    }
    return secondsPerItem(since: start, closures.count)
}

/// Seconds per closure: `concurrentPerform` calling each closure and writing its value into a
/// buffer made inside the timing.
public func concurrentPerformIntoBuffer(_ closures: [() -> Int]) -> Double {
    let start = DispatchTime.now()
    let buffer = UnsafeMutableBufferPointer<Int>.allocate(capacity: closures.count)
    DispatchQueue.concurrentPerform(iterations: closures.count) { i in
        buffer[i] = closures[i]()
    }
    precondition(buffer[closures.count - 1] == (closures.count - 1) &* 2)
    buffer.deallocate()
    return secondsPerItem(since: start, closures.count)
}

/// Seconds per link: `links` maps built by reassignment, the chain awaited, then dropped.
public func mapChainBuiltAwaitedAndFreed(links: Int) -> Double {
    let start = DispatchTime.now()
    do {
        var t = ThrowableTask<Int> { 0 }
        for _ in 0..<links { t = t.map { $0 + 1 } }
        let value = try! t.await()
        precondition(value == links)
    }
    return secondsPerItem(since: start, links)
}

/// Seconds per hop: `hops` blocks on a global queue, each `async`ing the next, the last one
/// signalling the waiter.
public func globalQueueHops(_ hops: Int) -> Double {
    let start = DispatchTime.now()
    let done = DispatchSemaphore(value: 0)
    let queue = DispatchQueue.global()
    @Sendable func hop(_ left: Int) {
        guard left > 0 else {
            done.signal()
            return
        }
        queue.async { hop(left - 1) }
    }
    hop(hops)
    done.wait()
    return secondsPerItem(since: start, hops)
}

/// Seconds per continuation: one promise, `count` × `promise.future.map { $0 + 1 }.start()`,
/// resolved once, every future awaited. All of it on a thread of a global queue, as the Swift
/// tasks of the baseline run on the cooperative pool: resolved on the main thread, each step
/// would go to a worker thread, since work on a global queue never runs on the main thread.
public func futureMapStartFanOut(_ count: Int) -> Double {
    let start = DispatchTime.now()
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        mapStartFanOut(count)
        done.signal()
    }
    done.wait()
    return secondsPerItem(since: start, count)
}

/// Seconds per continuation: the fan-out of ``futureMapStartFanOut(_:)`` made, resolved and
/// awaited on the calling thread. Called on the main thread (row 8b's shape), every step goes
/// to a worker thread, since work on a global queue never runs there.
public func futureMapStartFanOutOnThisThread(_ count: Int) -> Double {
    let start = DispatchTime.now()
    mapStartFanOut(count)
    return secondsPerItem(since: start, count)
}

/// One promise, `count` × `promise.future.map { $0 + 1 }.start()`, resolved once, every
/// future awaited.
private func mapStartFanOut(_ count: Int) {
    let promise = Promise<Int>()
    var futures: [Future<Int>] = []
    futures.reserveCapacity(count)
    for _ in 0..<count { futures.append(promise.future.map { $0 + 1 }.start()) }
    promise.resolve(1)
    for future in futures { precondition(try! future.await() == 2) }
}

/// Seconds per task: `count` Swift tasks that each await one shared value and add one,
/// the value set once, every task's value awaited.
public func swiftTasksAwaitingOneValue(_ count: Int) -> Double {
    let start = DispatchTime.now()
    let done = DispatchSemaphore(value: 0)
    _Concurrency.Task.detached {
        let shared = SharedValue()
        var tasks: [_Concurrency.Task<Int, Never>] = []
        tasks.reserveCapacity(count)
        for _ in 0..<count { tasks.append(_Concurrency.Task { await shared.value + 1 }) }
        shared.set(1)
        for task in tasks {
            let value = await task.value
            precondition(value == 2)
        }
        done.signal()
    }
    done.wait()
    return secondsPerItem(since: start, count)
}

/// A value async code waits for, set once: the continuations of its waiters behind a lock.
final class SharedValue {
    private let lock = NSLock()
    private var stored: Int?
    private var waiters: [CheckedContinuation<Int, Never>] = []

    var value: Int {
        get async {
            await withCheckedContinuation { continuation in
                lock.lock()
                if let stored {
                    lock.unlock()
                    continuation.resume(returning: stored)
                } else {
                    waiters.append(continuation)
                    lock.unlock()
                }
            }
        }
    }

    func set(_ value: Int) {
        lock.lock()
        stored = value
        let waiting = waiters
        waiters = []
        lock.unlock()
        for waiter in waiting { waiter.resume(returning: value) }
    }
}

func secondsPerItem(since start: DispatchTime, _ count: Int) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 / Double(count)
}

/// Bolts' recursive countdown (issue 20): each level a `flatMap` that makes the next level,
/// then a `map` that counts it.
public func countdown(_ i: Int) -> ThrowableTask<Int> {
    i == 0 ? ThrowableTask { 0 } : ThrowableTask { i }.flatMap { _ in countdown(i - 1) }.map { $0 + 1 }
}

/// The tail form of ``countdown(_:)``: nothing after the recursive `flatMap`.
public func tailCountdown(_ i: Int) -> ThrowableTask<Int> {
    i == 0 ? ThrowableTask { 0 } : ThrowableTask { i }.flatMap { _ in tailCountdown(i - 1) }
}

/// Seconds per level: ``countdown(_:)`` of `levels`, awaited on a thread with a 512 KiB stack.
public func recursiveCountdownAwaited(levels: Int) -> Double {
    onSmallStack {
        let start = DispatchTime.now()
        let value = try! countdown(levels).await()
        precondition(value == levels)
        return secondsPerItem(since: start, levels)
    }
}

/// Seconds per level: the chain ``countdown(_:)`` makes (a `flatMap` to a task, then a `map`,
/// per level), built by reassignment, awaited on a thread with a 512 KiB stack.
public func reassignedCountdownAwaited(levels: Int) -> Double {
    onSmallStack {
        let start = DispatchTime.now()
        var t = ThrowableTask<Int> { 0 }
        for i in 0..<levels { t = t.flatMap { value in ThrowableTask { value + i - i } }.map { $0 + 1 } }
        let value = try! t.await()
        precondition(value == levels)
        return secondsPerItem(since: start, levels)
    }
}

/// Seconds per level: ``tailCountdown(_:)`` of `levels`, awaited on a 512 KiB stack.
public func tailCountdownAwaited(levels: Int) -> Double {
    onSmallStack {
        let start = DispatchTime.now()
        _ = try! tailCountdown(levels).await()
        return secondsPerItem(since: start, levels)
    }
}

/// Runs `body` on a thread of its own with a 512 KiB stack and returns what it returned.
func onSmallStack(_ body: @escaping () -> Double) -> Double {
    /// The thread's result, read once the thread has signalled.
    final class Outcome {
        var seconds = 0.0
    }
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        outcome.seconds = body()
        done.signal()
    }
    thread.stackSize = 512 << 10
    thread.start()
    done.wait()
    return outcome.seconds
}
