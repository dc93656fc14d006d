import Dispatch
import Foundation
import Taskig

/// Waits that cannot end, each as a program might build one by mistake.
enum Hangs {
    static let all: [String: @Sendable () -> Void] = [
        "queue-targets-queue": queueTargetsQueue,
        "spin-for-later-task": spinForLaterTask,
        "user-lock": userLock,
        "swift-tasks-blocking": swiftTasksBlocking,
        "future-cycle": futureCycle,
    ]

    /// A block on serial queue `q` waits for a task whose queue targets `q`: the task's block
    /// can only run once the waiting block returns (Taskig cannot see a queue's target).
    static func queueTargetsQueue() {
        let q = DispatchQueue(label: "com.example.database")
        let p = DispatchQueue(label: "com.example.database.reads", target: q)
        q.sync {
            let rows = Task(executionQueue: p) { 42 }.await()
            print(rows)
        }
    }

    /// A task spins until a later task of the same batch has run, at `concurrency: 1`.
    static func spinForLaterTask() {
        let flag = Flag()
        let waiting = Task { () -> Int in
            while !flag.isSet { usleep(1_000) }
            return 1
        }
        let setting = Task { () -> Int in
            flag.set()
            return 2
        }
        print([waiting, setting].awaitAll(concurrency: 1))
    }

    /// A task's work waits for a lock that the thread waiting for the task holds.
    static func userLock() {
        let lock = NSLock()
        lock.lock()
        let total = ThrowableTask { () -> Int in
            lock.lock()
            defer { lock.unlock() }
            return 1
        }
        print((try? total.await()) ?? 0, "never")
    }

    /// Swift tasks call a plain function that blocks for a future, whose work in turn waits for
    /// a Swift task: the blocking waits hold the cooperative pool's threads, which that Swift
    /// task needs (on Darwin the pool never grows; Dispatch's on Linux, about once a second).
    static func swiftTasksBlocking() {
        _ = settings
        for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
            _Concurrency.Task { print(loadSettings()) }
        }
    }

    /// Two futures whose works wait for each other: not a hang, a deadlock error.
    static func futureCycle() {
        let futures = LockedFutures()
        let ready = DispatchSemaphore(value: 0)
        let first = ThrowableTask { () -> Int in
            ready.wait()
            return try futures.second!.await() + 1
        }.start()
        let second = ThrowableTask { () -> Int in
            ready.wait()
            return try futures.first!.await() + 1
        }.start()
        futures.set(first, second)
        ready.signal()
        ready.signal()
        if case .failure(let error) = first.awaitResult() { print(error) }
    }
}

/// Settings, loaded once, by work that outlasts the program, then waits for a Swift task.
let settings = ThrowableTask { () -> Int in
    Thread.sleep(forTimeInterval: 3_600)
    let done = DispatchSemaphore(value: 0)
    let result = LockedInt()
    _Concurrency.Task {
        result.set(7)
        done.signal()
    }
    done.wait()
    return result.value
}.start()

/// A plain function, called from async code, that blocks: `noasync` cannot see it.
func loadSettings() -> Int {
    (try? settings.await()) ?? 0
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

final class LockedInt: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = 0
    var value: Int { lock.withLock { stored } }
    func set(_ value: Int) { lock.withLock { stored = value } }
}

final class LockedFutures: @unchecked Sendable {
    private let lock = NSLock()
    private var futures: (Future<Int>?, Future<Int>?) = (nil, nil)
    var first: Future<Int>? { lock.withLock { futures.0 } }
    var second: Future<Int>? { lock.withLock { futures.1 } }
    func set(_ first: Future<Int>, _ second: Future<Int>) { lock.withLock { futures = (first, second) } }
}
