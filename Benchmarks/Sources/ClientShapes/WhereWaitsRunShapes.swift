// Issue 19's shapes, written as a client writes them (Swift 5 language mode, public API
// only): where the work of a wait runs. Every closure literal is made inside what is timed;
// each function returns seconds per wait, or the wall time of one call, and its baseline is
// beside it. Which thread calls them is part of the shape: taskig-bench calls the first four
// from a plain `Thread`, `taskAwaitsOnThisThread` on a command-line program's main thread,
// and the collections from a plain `Thread` of a fresh process.
import Dispatch
import Foundation
import Taskig

/// Seconds per wait: `count` tasks `ThrowableTask { i }` made into an array, then awaited one
/// after the other with `for t in tasks { try t.await() }`. The array and the loop variable
/// both hold each task while it is awaited.
public func storedThrowableTaskAwaits(_ count: Int) throws -> Double {
    let start = DispatchTime.now()
    var sum = 0
    do {
        let tasks = (0..<count).map { i in ThrowableTask { i } }
        for t in tasks { sum &+= try t.await() }
    }
    precondition(sum == count * (count - 1) / 2)
    return secondsPerItem(since: start, count)
}

/// Seconds per wait: `try ThrowableTask { 1 }.await()`, a task made and awaited at once, in a
/// loop of `count`.
public func freshThrowableTaskAwaits(_ count: Int) throws -> Double {
    let start = DispatchTime.now()
    var sum = 0
    for _ in 0..<count { sum &+= try ThrowableTask { 1 }.await() }
    precondition(sum == count)
    return secondsPerItem(since: start, count)
}

/// A class that keeps a task in a property, as a service or a view model would.
public final class TaskHolder {
    /// The task, awaited where it is kept.
    public var task: ThrowableTask<Int>

    /// A holder of `task`.
    public init(task: ThrowableTask<Int>) {
        self.task = task
    }
}

/// Seconds per wait: one task kept in a property of a class, awaited `count` times with
/// `try holder.task.await()` (each wait runs the task's work again).
public func heldTaskAwaits(_ count: Int) throws -> Double {
    let start = DispatchTime.now()
    var sum = 0
    do {
        let holder = TaskHolder(task: ThrowableTask { 1 })
        for _ in 0..<count { sum &+= try holder.task.await() }
    }
    precondition(sum == count)
    return secondsPerItem(since: start, count)
}

/// Seconds per wait: `try ThrowableTask { 1 }.await(timeout: 10)` in a loop of `count`.
public func timedThrowableTaskAwaits(_ count: Int) throws -> Double {
    let start = DispatchTime.now()
    var sum = 0
    for _ in 0..<count { sum &+= try ThrowableTask { 1 }.await(timeout: 10) }
    precondition(sum == count)
    return secondsPerItem(since: start, count)
}

/// Seconds per wait: the same work handed to `DispatchQueue.global().async`, its result
/// waited for on a semaphore, in a loop of `count`.
public func globalAsyncSemaphoreWaits(_ count: Int) -> Double {
    let start = DispatchTime.now()
    var sum = 0
    for _ in 0..<count {
        let result = ResultBox()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            result.value = 1
            done.signal()
        }
        done.wait()
        sum &+= result.value
    }
    precondition(sum == count)
    return secondsPerItem(since: start, count)
}

/// What a block on another thread hands back to the thread that waits for it on a semaphore.
private final class ResultBox {
    var value = 0
}

/// Seconds per wait: `Task { 1 }.await()` in a loop of `count`, on the calling thread (in
/// taskig-bench, a command-line program's main thread before any Swift concurrency is used).
public func taskAwaitsOnThisThread(_ count: Int) -> Double {
    let start = DispatchTime.now()
    var sum = 0
    for _ in 0..<count { sum &+= Task { 1 }.await() }
    precondition(sum == count)
    return secondsPerItem(since: start, count)
}

/// Seconds for the whole call: `count` tasks that complete through a callback from
/// `DispatchQueue.global().asyncAfter` 50 ms later, awaited with `awaitAll(concurrency: 200)`.
public func timerCallbackTasksAwaitAll(_ count: Int) -> Double {
    let start = DispatchTime.now()
    do {
        let tasks = (0..<count).map { i in
            Task<Int> { done in
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { done(i) }
            }
        }
        let values = tasks.awaitAll(concurrency: 200)
        precondition(values == Array(0..<count))
    }
    return secondsPerItem(since: start, 1)
}

/// Seconds for the whole call: the same `count` timers with no task around them, their
/// callbacks waited for with a `DispatchGroup`.
public func timerCallbacksDispatchGroup(_ count: Int) -> Double {
    let start = DispatchTime.now()
    let group = DispatchGroup()
    let delivered = CallbackCounter()
    for _ in 0..<count {
        group.enter()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
            delivered.add()
            group.leave()
        }
    }
    group.wait()
    precondition(delivered.count == count)
    return secondsPerItem(since: start, 1)
}

/// Counts callbacks as they arrive, from any thread.
public final class CallbackCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var delivered = 0

    /// A counter at zero.
    public init() {}

    /// Counts one callback.
    public func add() {
        lock.lock()
        delivered += 1
        lock.unlock()
    }

    /// The callbacks counted so far.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return delivered
    }
}

/// Seconds for the whole call: `count` tasks whose callback comes from another Taskig task's
/// `async { }`, awaited with `awaitAll(concurrency: 200)`; `delivered` counts the callbacks.
public func taskCallbackTasksAwaitAll(_ count: Int, delivered: CallbackCounter) -> Double {
    let start = DispatchTime.now()
    do {
        let tasks = (0..<count).map { i in
            Task<Int> { done in
                Task { i }.async { value in
                    delivered.add()
                    done(value)
                }
            }
        }
        let values = tasks.awaitAll(concurrency: 200)
        precondition(values == Array(0..<count))
    }
    return secondsPerItem(since: start, 1)
}
