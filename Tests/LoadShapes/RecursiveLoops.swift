import Dispatch
import Foundation
import Synchronization
import Taskig

/// The loops users write by recursion, as Bolts teaches them (issue 20): each level a task
/// whose continuation makes the next level. Each runs `levels` levels on a thread with a
/// 512 KiB stack, which a loop that nested a call per level would overflow within a few
/// thousand levels.
extension LoadShapes {
    /// The levels each recursive loop runs, unless the command line gives another count.
    static var levels: Int {
        CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1_000_000
    }

    /// Runs `body` on a thread of its own with a 512 KiB stack and returns what it returned.
    static func onSmallStack<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let outcome = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let value = body()
            outcome.withLock { $0 = value }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        return outcome.withLock { $0! }
    }

    /// Runs `loop` on a small stack, prints its seconds and nanoseconds per level, and
    /// returns whether it produced `expected`.
    static func timedLoop(_ name: String, expected: Int, _ loop: @escaping @Sendable () throws -> Int) -> Bool {
        let levels = levels
        let (value, seconds) = onSmallStack { () -> (Int?, Double) in
            let start = DispatchTime.now()
            let value = try? loop()
            return (value, Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
        }
        print("\(name)-seconds \(seconds)")
        print("\(name)-ns-per-level \(seconds * 1e9 / Double(levels))")
        if value != expected { print("\(name)-wrong \(value.map(String.init) ?? "error")") }
        return value == expected
    }

    /// Bolts' countdown: each level a `flatMap` that makes the next level, then a `map`.
    static func recursiveCountdown() -> Bool {
        let levels = levels
        return timedLoop("countdown", expected: levels) { try countdown(levels).await() }
    }

    /// The tail form of Bolts' countdown, nothing after each level's `flatMap`: prints how much
    /// the resident peak grew over the loop, which holds one level at a time.
    static func recursiveTailCountdown() -> Bool {
        let levels = levels
        let before = residentKilobytes("VmRSS:")
        let finished = timedLoop("tail-countdown", expected: 0) { try tailCountdown(levels).await() }
        print("tail-countdown-peak-growth-bytes \((residentKilobytes("VmHWM:") - before) * 1024)")
        return finished
    }

    /// A field of `/proc/self/status`, in kilobytes.
    static func residentKilobytes(_ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field) }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
    }

    /// Retry by recursion: each level fails, and its `recover` makes the next attempt.
    static func recursiveRecover() -> Bool {
        let levels = levels
        return timedLoop("recover", expected: levels + 1) { try attempt(levels).await() }
    }

    /// Each level a `continueWith` before and after the `flatMap` that makes the next.
    static func recursiveContinueWith() -> Bool {
        let levels = levels
        return timedLoop("continue-with", expected: levels) { try continued(levels).await() }
    }

    /// A loop over futures: each level starts a step, and the future of its continuation,
    /// which starts the next level.
    static func recursiveFuturePoll() -> Bool {
        let levels = levels
        return timedLoop("future-poll", expected: levels) { try poll(0, until: levels).await() }
    }

    /// `awaitReduce` over `levels` elements, each step a task.
    static func reduceOfTasks() -> Bool {
        let levels = levels
        return timedLoop("reduce", expected: levels) {
            try (0..<levels).awaitReduce(0) { sum, _ in ThrowableTask { sum + 1 } }
        }
    }

    /// A run tree `levels` deep, whose root is a future: cancelling it reaches the innermost
    /// body, which polls its own run and has a cancellation handler. Prints how long each took.
    static func cancelDeepRunTree() -> Bool {
        let levels = levels
        let bodyStarted = DispatchSemaphore(value: 0)
        let cancelledAt = Atomic<UInt64>(0)
        let handlerRanAt = Atomic<UInt64>(0)
        let sawCancellation = DispatchSemaphore(value: 0)
        let future = onSmallStack {
            waitingCountdown(levels) {
                ThrowableTask.onCurrentTaskCancelled {
                    handlerRanAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
                }
                bodyStarted.signal()
                while !ThrowableTask.isCurrentTaskCancelled { usleep(100) }
                cancelledAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
                sawCancellation.signal()
            }.start()
        }
        bodyStarted.wait()
        let cancelling = DispatchTime.now().uptimeNanoseconds
        future.cancel()
        let cancelReturned = DispatchTime.now().uptimeNanoseconds
        sawCancellation.wait()
        print("cancel-call-ms \(Double(cancelReturned - cancelling) / 1e6)")
        print("cancel-reached-body-ms \(Double(cancelledAt.load(ordering: .relaxed) - cancelling) / 1e6)")
        let giveUp = DispatchTime.now() + 60
        while handlerRanAt.load(ordering: .relaxed) == 0, DispatchTime.now() < giveUp { usleep(100) }
        let handlerRan = handlerRanAt.load(ordering: .relaxed)
        print("cancel-reached-handler-ms \(handlerRan == 0 ? -1 : Double(handlerRan - cancelling) / 1e6)")
        let outcome = onSmallStack { () -> Bool in
            if case .failure(CancellableTaskError.taskWasCancelled) = future.awaitResult() { return true }
            return false
        }
        return outcome
    }
}

/// A failure that makes ``attempt(_:)`` try again.
struct AttemptFailed: Error {}

/// Fails `i` times, each failure recovered by the next attempt, then counts the attempts.
func attempt(_ i: Int) -> ThrowableTask<Int> {
    ThrowableTask { () throws -> Int in
        if i > 0 { throw AttemptFailed() }
        return 0
    }
    .recover { _ in attempt(i - 1) }.map { $0 + 1 }
}

/// ``countdown(_:)`` with a `continueWith` on each side of each level's `flatMap`.
func continued(_ i: Int) -> ThrowableTask<Int> {
    guard i > 0 else { return ThrowableTask { 0 } }
    return ThrowableTask { i }.continueWith { try $0.get() }.flatMap { _ in continued(i - 1) }
        .continueWith { try $0.get() + 1 }
}

/// Starts each level's step as a future, and the level's continuation as another, whose
/// `flatMap` makes the next level, until `end`.
func poll(_ i: Int, until end: Int) -> Future<Int> {
    ThrowableTask { i }.start().flatMap { i in i == end ? ThrowableTask { i }.start() : poll(i + 1, until: end) }
        .start()
}

/// ``countdown(_:)`` whose innermost level runs `body` and returns zero.
func waitingCountdown(_ i: Int, _ body: @escaping @Sendable () -> Void) -> ThrowableTask<Int> {
    guard i > 0 else {
        return ThrowableTask { () -> Int in
            body()
            return 0
        }
    }
    return ThrowableTask { i }.flatMap { _ in waitingCountdown(i - 1, body) }.map { $0 + 1 }
}

/// Counts down from `i` by recursion, one level per `flatMap`, with nothing after it: the
/// task each level makes is its outcome.
func tailCountdown(_ i: Int) -> ThrowableTask<Int> {
    i == 0 ? ThrowableTask { 0 } : ThrowableTask { i }.flatMap { _ in tailCountdown(i - 1) }
}

/// Counts down from `i` by recursion, one level per `flatMap`, and counts the levels back up
/// with a `map` after each.
func countdown(_ i: Int) -> ThrowableTask<Int> {
    i == 0 ? ThrowableTask { 0 } : ThrowableTask { i }.flatMap { _ in countdown(i - 1) }.map { $0 + 1 }
}
