import Dispatch
import Foundation
import Synchronization
import Taskig

/// The load shapes, by name. Each runs its load, prints what it measured as `key value`
/// lines, and returns whether every result was right.
enum LoadShapes {
    static let all: [String: @Sendable () -> Bool] = [
        "timeout-storm": timeoutStorm,
        "start-storm": startStorm,
        "nested-callers": nestedCallers,
        "blocking-fifty": blockingFifty,
        "concurrency-five": concurrencyFive,
        "callback-wave": callbackWave,
        "computing-batch": computingBatch,
        "computing-beside-one-blocked": computingBesideOneBlocked,
        "computing-completions-slow-body": computingCompletionsWithASlowBody,
        "callbacks-from-tasks": callbacksFromTasks,
        "callbacks-bounded": callbacksBounded,
        "blocking-late": blockingLate,
        "stuck-then-quick": stuckThenQuick,
        "short-blocking": shortBlocking,
        "async-bodies-past-the-limit": asyncBodiesPastTheLimit,
        "nested-race-on-a-full-pool": nestedRaceOnAFullPool,
        "nested-collection-on-a-full-pool": nestedCollectionOnAFullPool,
        "timed-waits-on-a-full-pool": timedWaitsOnAFullPool,
        "future-chain": futureChain,
        "recursive-countdown": recursiveCountdown,
        "recursive-tail-countdown": recursiveTailCountdown,
        "recursive-recover": recursiveRecover,
        "recursive-continue-with": recursiveContinueWith,
        "recursive-future-poll": recursiveFuturePoll,
        "reduce-of-tasks": reduceOfTasks,
        "cancel-deep-run-tree": cancelDeepRunTree,
        "swift-heartbeat": swiftHeartbeat,
        "progress-cancel-global-threads-held": progressCancelWithGlobalThreadsHeld,
        "idle": idle,
        "stack-overflow-on-worker": stackOverflowOnWorker,
    ]

    /// A task whose work awaits the task itself, without end, on a worker: the stack overflows
    /// there, and the process must die printing Swift's crash report, as it does on the main
    /// thread. Never returns.
    static func stackOverflowOnWorker() -> Bool {
        let box = TaskBox()
        box.task.withLock { $0 = ThrowableTask { try box.task.withLock { $0 }!.await() + 1 } }
        let ended = DispatchSemaphore(value: 0)
        box.task.withLock { $0 }!.async { _ in ended.signal() }
        ended.wait()
        return false
    }

    /// Eight callers, for a second, each awaiting with a 1 ms timeout a task whose 50 ms body
    /// ignores cancellation; each body notes whether its caller had already given up on it
    /// when it started, and how long before: a worker that took the run just before its caller
    /// gave up may reach the body's first line just after, and only the bug starts bodies
    /// long after (behind the 50 ms bodies that hold the workers).
    static func timeoutStorm() -> Bool {
        let started = Atomic(0)
        let startedAfterGivingUp = Atomic(0)
        let startedLongAfterGivingUp = Atomic(0)
        let longestLagMicroseconds = Atomic(0)
        let timedOut = Atomic(0)
        let callers = DispatchGroup()
        let end = DispatchTime.now() + 1
        for _ in 0..<8 {
            callers.enter()
            Thread.detachNewThread {
                while DispatchTime.now() < end {
                    let gaveUpAt = Atomic<UInt64>(0)
                    let task = ThrowableTask { () -> Int in
                        started.add(1, ordering: .relaxed)
                        let gaveUp = gaveUpAt.load(ordering: .acquiring)
                        if gaveUp != 0 {
                            let lag = Int((DispatchTime.now().uptimeNanoseconds - gaveUp) / 1_000)
                            startedAfterGivingUp.add(1, ordering: .relaxed)
                            if lag >= 20_000 { startedLongAfterGivingUp.add(1, ordering: .relaxed) }
                            longestLagMicroseconds.max(lag, ordering: .relaxed)
                        }
                        usleep(50_000)
                        return 1
                    }
                    do {
                        _ = try task.await(timeout: 0.001)
                    } catch TaskigError.timedOut {
                        gaveUpAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing)
                        timedOut.add(1, ordering: .relaxed)
                    } catch {}
                }
                callers.leave()
            }
        }
        callers.wait()
        print("timed-out \(timedOut.load(ordering: .relaxed))")
        print("bodies-started \(started.load(ordering: .relaxed))")
        print("bodies-started-after-giving-up \(startedAfterGivingUp.load(ordering: .relaxed))")
        print("bodies-started-20ms-after-giving-up \(startedLongAfterGivingUp.load(ordering: .relaxed))")
        print("longest-lag-microseconds \(longestLagMicroseconds.load(ordering: .relaxed))")
        // Enough waits given up to need far more than the thread limit, had every body
        // started (about 8,000 on a quiet machine, a few hundred under ThreadSanitizer).
        return timedOut.load(ordering: .relaxed) > 200
    }

    /// 2,000 `start()`s in a loop of work that waits until the loop has ended, or 10 s, then
    /// every future awaited. Had a `start()` waited for a thread, the loop would have waited
    /// for work that waits for the loop: that work would wait out its 10 s, which it counts.
    static func startStorm() -> Bool {
        let loopEnded = DispatchGroup()
        loopEnded.enter()
        let waitedOutTheLoop = Atomic(0)
        let loopStart = DispatchTime.now()
        let futures = (0..<2000).map { i in
            ThrowableTask { () -> Int in
                if loopEnded.wait(timeout: .now() + 10) == .timedOut { waitedOutTheLoop.add(1, ordering: .relaxed) }
                return i
            }.start()
        }
        print("start-loop-seconds \(secondsSince(loopStart))")
        loopEnded.leave()
        let values = futures.map { try? $0.await() }
        print("work-that-waited-out-the-loop \(waitedOutTheLoop.load(ordering: .relaxed))")
        return values == (0..<2000).map { Optional($0) }
    }

    /// Three callers at once, each running a collection wait nested four levels deep: 4 tasks
    /// that each wait for 4 tasks, …, whose leaves sleep 1 ms.
    static func nestedCallers() -> Bool {
        @Sendable func level(_ depth: Int) -> Int {
            guard depth > 0 else {
                usleep(1_000)
                return 1
            }
            return (0..<4).map { _ in Task { level(depth - 1) } }.awaitAll().reduce(0, +)
        }
        let totals = LockedList<Int>()
        let callers = DispatchGroup()
        for _ in 0..<3 {
            callers.enter()
            Thread.detachNewThread {
                totals.append(level(4))
                callers.leave()
            }
        }
        callers.wait()
        return totals.values == [256, 256, 256]
    }

    /// 400 tasks that sleep 20 ms each, 50 at a time; the first 50 meet first.
    static func blockingFifty() -> Bool {
        let probe = RunningProbe()
        let firstWave = Meeting(of: 50)
        let values = (0..<400).map { i in
            Task {
                probe.measure {
                    if i < 50 { firstWave.arriveAndWait() }
                    usleep(20_000)
                }
                return i
            }
        }.awaitAll(concurrency: 50)
        print("peak-running \(probe.peak)")
        print("waits-that-timed-out \(firstWave.waitsThatTimedOut)")
        return values == Array(0..<400)
    }

    /// 20 tasks that sleep 50 ms each, 5 at a time; the first 5 meet first.
    static func concurrencyFive() -> Bool {
        let probe = RunningProbe()
        let firstWave = Meeting(of: 5)
        let values = (0..<20).map { i in
            Task {
                probe.measure {
                    if i < 5 { firstWave.arriveAndWait() }
                    usleep(50_000)
                }
                return i
            }
        }.awaitAll(concurrency: 5)
        print("peak-running \(probe.peak)")
        print("waits-that-timed-out \(firstWave.waitsThatTimedOut)")
        return values == Array(0..<20)
    }

    /// 300 tasks that each compute for about 2 ms, at the default `concurrency` of 50: lanes
    /// beyond the cores open only beside lanes that wait, so these stay on about one per core.
    static func computingBatch() -> Bool {
        let values = (0..<300).map { i in Task { compute(for: 0.002, returning: i) } }.awaitAll()
        return values == Array(0..<300)
    }

    /// 300 tasks that compute for 2 ms each beside one that sleeps for 300 ms, at the default
    /// `concurrency`: the sleeping task's lane gets one lane beside it, once, not one at every
    /// look while it sleeps.
    static func computingBesideOneBlocked() -> Bool {
        let values = (0..<301).map { i in
            Task { () -> Int in
                if i == 0 { usleep(300_000) } else { return compute(for: 0.002, returning: i) }
                return i
            }
        }.awaitAll()
        return values == Array(0..<301)
    }

    /// A `completions` loop over 60 tasks that compute for 2 ms each, inside a task, whose body
    /// sleeps 5 ms per outcome: the caller's lane blocks between tasks, in the loop's body,
    /// which is not a task that waits.
    static func computingCompletionsWithASlowBody() -> Bool {
        let tasks = (0..<60).map { i in ThrowableTask { compute(for: 0.002, returning: i) } }
        let seen = try? ThrowableTask { () -> [Int] in
            var seen: [Int] = []
            for (_, result) in tasks.completions() {
                seen.append(try result.get())
                usleep(5_000)
            }
            return seen
        }.await()
        return seen?.sorted() == Array(0..<60)
    }

    /// Computes (reads the clock in a loop) for `seconds`, then returns `value`. The loop runs
    /// at least once, however late the thread gets a core: a thread preempted for longer than
    /// `seconds` before its first look at the clock (ThreadSanitizer at a load of 9) must still
    /// return `value`.
    static func compute(for seconds: Double, returning value: Int) -> Int {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        var spins = 0
        repeat { spins &+= 1 } while DispatchTime.now().uptimeNanoseconds < end
        return spins > 0 ? value : -1
    }

    /// 200 tasks that complete through a callback, 200 at a time: a task whose callback is
    /// pending holds no thread (rule 4 of "Waiting safely"), so they all wait at once. The callbacks
    /// come from a global queue once all 200 are pending, or after 10 s: tasks that held their
    /// threads while pending could not all be, and would wait out the 10 s.
    static func callbackWave() -> Bool {
        let wave = CompletionWave(count: 200)
        let values = (0..<200).map { i in Task<Int> { done in wave.leave(i, done) } }.awaitAll(concurrency: 200)
        print("waits-that-timed-out \(wave.waitsThatTimedOut)")
        return values == Array(0..<200)
    }

    /// 200 tasks whose callbacks come from other Taskig tasks run with `async`, 200 at a time:
    /// the lanes must not hold the threads those tasks need.
    static func callbacksFromTasks() -> Bool {
        let values = (0..<200).map { i in
            Task<Int> { done in Task { i * 2 }.async { done($0) } }
        }.awaitAll(concurrency: 200)
        return values == (0..<200).map { $0 * 2 }
    }

    /// 60 throwing tasks that complete through a 20 ms timer, 5 at a time: pending ones count
    /// toward the bound, so 5 are pending at once, in 12 waves. The first 5 arm their timers
    /// once all 5 are pending.
    static func callbacksBounded() -> Bool {
        let pending = Atomic(0)
        let highest = Atomic(0)
        let firstWave = Meeting(of: 5)
        let values = try? (0..<60).map { i in
            ThrowableTask<Int> { done in
                highest.max(pending.add(1, ordering: .relaxed).newValue, ordering: .relaxed)
                let armTimer: @Sendable () -> Void = {
                    DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) {
                        pending.subtract(1, ordering: .relaxed)
                        done(.success(i))
                    }
                }
                if i < 5 { firstWave.arrive(then: armTimer) } else { armTimer() }
            }
        }.awaitAll(concurrency: 5)
        print("peak-running \(highest.load(ordering: .relaxed))")
        print("waits-that-timed-out \(firstWave.waitsThatTimedOut)")
        return values == Array(0..<60)
    }

    /// 5,000 quick tasks, then 40 that block for 100 ms, 20 at a time; the first 20 of those
    /// meet first.
    static func blockingLate() -> Bool {
        let probe = RunningProbe()
        let firstWave = Meeting(of: 20)
        let quick = (0..<5_000).map { i in Task { i } }
        let blocking = (0..<40).map { i in
            Task {
                probe.measure {
                    if i < 20 { firstWave.arriveAndWait() }
                    usleep(100_000)
                }
                return i
            }
        }
        let values = (quick + blocking).awaitAll(concurrency: 20)
        print("peak-running \(probe.peak)")
        print("waits-that-timed-out \(firstWave.waitsThatTimedOut)")
        return values == Array(0..<5_000) + Array(0..<40)
    }

    /// 20 tasks that block for 30 ms, 3,000 quick ones, then 20 that block for 100 ms, 20 at a
    /// time; the last 20 meet first.
    static func stuckThenQuick() -> Bool {
        let probe = RunningProbe()
        let lastWave = Meeting(of: 20)
        let first = (0..<20).map { i in
            Task { () -> Int in
                usleep(30_000); return -i
            }
        }
        let quick = (0..<3_000).map { i in Task { i } }
        let blocking = (0..<20).map { i in
            Task {
                probe.measure {
                    lastWave.arriveAndWait()
                    usleep(100_000)
                }
                return i
            }
        }
        let values = (first + quick + blocking).awaitAll(concurrency: 20)
        print("peak-running \(probe.peak)")
        print("waits-that-timed-out \(lastWave.waitsThatTimedOut)")
        return values == (0..<20).map { -$0 } + Array(0..<3_000) + Array(0..<20)
    }

    /// 2,000 tasks that each block for 100 µs, 50 at a time: no lane is ever inside one task
    /// for long, yet the tasks need every lane. The same tasks on two lanes are the baseline,
    /// timed in this process. Fifty lanes need fifty thread wake-ups at once, which other
    /// processes on a loaded machine can delay several times over, so the fastest of three
    /// runs counts: a wait that never reached full concurrency is slow in all three.
    static func shortBlocking() -> Bool {
        let probe = RunningProbe()
        let tasks = (0..<2_000).map { i in
            Task {
                probe.measure { usleep(100) }; return i
            }
        }
        var fastestFiftyLanes = Double.infinity
        var values: [Int] = []
        for _ in 0..<3 {
            let fiftyLanesStart = DispatchTime.now()
            values = tasks.awaitAll(concurrency: 50)
            fastestFiftyLanes = min(fastestFiftyLanes, secondsSince(fiftyLanesStart))
            guard values == Array(0..<2_000) else { return false }
        }
        print("fifty-lanes-seconds \(fastestFiftyLanes)")
        print("peak-running \(probe.peak)")
        let twoLanesStart = DispatchTime.now()
        let twoLaneValues = tasks.awaitAll(concurrency: 2)
        print("two-lanes-seconds \(secondsSince(twoLanesStart))")
        return values == Array(0..<2_000) && twoLaneValues == values
    }

    /// 200 tasks with `async` bodies, awaited 100 at a time: more lanes block waiting for
    /// them than Taskig has threads for ordinary work, so the bodies must still find threads.
    static func asyncBodiesPastTheLimit() -> Bool {
        let tasks = (0..<200).map { i in
            ThrowableTask { () async throws -> Int in
                try await _Concurrency.Task.sleep(nanoseconds: 20_000_000)
                return i
            }
        }
        return (try? tasks.awaitAll(concurrency: 100)) == Array(0..<200)
    }

    /// A chain of 1,000,000 hot futures, each a continuation of the one before, completed at
    /// once by resolving the first.
    static func futureChain() -> Bool {
        let first = Promise<Int>()
        var future = first.future
        for _ in 0..<1_000_000 { future = future.map { $0 &+ 1 }.start() }
        let resolved = DispatchTime.now()
        first.resolve(0)
        let value = try? future.await()
        print("resolve-seconds \(secondsSince(resolved))")
        return value == 1_000_000
    }

    /// 10,000 Swift tasks awaiting the `value` of tasks that block for 2 ms, counting how
    /// many of those run at once, while a heartbeat on Swift's cooperative pool sleeps 1 ms
    /// at a time and notes how often and how late it wakes; then, for comparison, 10,000 Swift
    /// tasks that each suspend for 1 ms.
    static func swiftHeartbeat() -> Bool {
        let probe = RunningProbe()
        let taskig = heartbeatStall {
            await withTaskGroup(of: Int.self) { group in
                for i in 0..<10_000 {
                    group.addTask {
                        await Task { () -> Int in
                            probe.measure { usleep(2_000) }
                            return i
                        }.value
                    }
                }
                return await group.reduce(0, +)
            }
        }
        let swift = heartbeatStall {
            await withTaskGroup(of: Int.self) { group in
                for i in 0..<10_000 {
                    group.addTask {
                        try? await _Concurrency.Task.sleep(nanoseconds: 1_000_000)
                        return i
                    }
                }
                return await group.reduce(0, +)
            }
        }
        print("taskig-stall-ms \(taskig.stall * 1000)")
        print("taskig-beats \(taskig.beats)")
        print("swift-stall-ms \(swift.stall * 1000)")
        print("swift-beats \(swift.beats)")
        print("taskig-peak-in-flight \(probe.peak)")
        let expected = (0..<10_000).reduce(0, +)
        return taskig.sum == expected && swift.sum == expected
    }

    /// How often a 1 ms heartbeat on the cooperative pool woke while `load` ran, the longest it
    /// overslept, and what `load` returned.
    static func heartbeatStall(
        _ load: @escaping @Sendable () async -> Int
    ) -> (stall: Double, beats: Int, sum: Int) {
        let done = DispatchSemaphore(value: 0)
        let outcome = LockedList<(Double, Int, Int)>()
        _Concurrency.Task {
            let finished = Atomic(false)
            let beat = _Concurrency.Task {
                var worst = 0.0
                var beats = 0
                while !finished.load(ordering: .relaxed) {
                    let before = DispatchTime.now()
                    try? await _Concurrency.Task.sleep(nanoseconds: 1_000_000)
                    worst = max(worst, secondsSince(before) - 0.001)
                    beats += 1
                }
                return (worst, beats)
            }
            let sum = await load()
            finished.store(true, ordering: .relaxed)
            let (worst, beats) = await beat.value
            outcome.append((worst, beats, sum))
            done.signal()
        }
        done.wait()
        return outcome.values[0]
    }

    /// `progress.cancel()` ending an `awaitAll` and an `awaitReduce` while sixteen blocked jobs
    /// hold Dispatch's global threads, where Foundation on Linux runs the progress's
    /// cancellation handler. The tasks end only once their run is cancelled, or after 30 s.
    static func progressCancelWithGlobalThreadsHeld() -> Bool {
        let held = DispatchSemaphore(value: 0)
        for _ in 0..<16 { DispatchQueue.global().async { held.wait() } }
        defer { for _ in 0..<16 { held.signal() } }
        @Sendable func untilCancelled() -> ThrowableTask<Int> {
            ThrowableTask { () -> Int in
                let end = DispatchTime.now() + 30
                while !ThrowableTask.isCurrentTaskCancelled && DispatchTime.now() < end { usleep(5_000) }
                return 1
            }
        }
        let all = secondsFromCancelToEnd { progress in
            _ = try (0..<4).map { _ in untilCancelled() }.awaitAll(concurrency: 4, progress: progress)
        }
        let reduce = secondsFromCancelToEnd { progress in
            _ = try (0..<4).awaitReduce(0, progress: progress) { sum, _ in untilCancelled().map { sum + $0 } }
        }
        print("await-all-cancel-seconds \(all.seconds)")
        print("await-reduce-cancel-seconds \(reduce.seconds)")
        return all.threwCancellation && reduce.threwCancellation
    }

    /// Runs `wait` with a progress of its own on a thread of its own, cancels the progress
    /// 0.1 s in, and returns how long the wait took to end after that, and whether it threw
    /// the cancellation.
    static func secondsFromCancelToEnd(
        _ wait: @escaping @Sendable (Progress) throws -> Void
    ) -> (seconds: Double, threwCancellation: Bool) {
        let progress = Progress(totalUnitCount: 0)
        let ended = DispatchSemaphore(value: 0)
        let threwCancellation = Atomic(false)
        Thread.detachNewThread {
            do { try wait(progress) } catch CancellableTaskError.taskWasCancelled {
                threwCancellation.store(true, ordering: .relaxed)
            } catch {}
            ended.signal()
        }
        Thread.sleep(forTimeInterval: 0.1)
        let cancelled = DispatchTime.now()
        progress.cancel()
        ended.wait()
        return (secondsSince(cancelled), threwCancellation.load(ordering: .relaxed))
    }

    /// Some of every kind of work, then three seconds of nothing: by then every thread of
    /// Taskig's has ended.
    static func idle() -> Bool {
        _ = (0..<2_000).map { i in Task { i } }.awaitAll()
        _ = (0..<100).map { _ in Task { usleep(2_000) } }.awaitAll(concurrency: 20)
        _ = try? ThrowableTask { usleep(20_000) }.await(timeout: 0.001)
        _ = try? ThrowableTask { 1 }.map { $0 + 1 }.start().await()
        _ = try? ThrowableTask.delay(0.01).timeout(1).retry(2).await()
        print("taskig-threads-after-work \(ThreadSampler.taskigThreads())")
        Thread.sleep(forTimeInterval: 3)
        let left = ThreadSampler.taskigThreads()
        print("taskig-threads-after-idle \(left)")
        return left == 0
    }

    static func secondsSince(_ start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

/// Counts how many measured pieces of work run at once, and the most that ever did.
final class RunningProbe: Sendable {
    private let running = Atomic(0)
    private let highest = Atomic(0)

    @discardableResult
    func measure<T>(_ body: () -> T) -> T {
        highest.max(running.add(1, ordering: .relaxed).newValue, ordering: .relaxed)
        defer { running.subtract(1, ordering: .relaxed) }
        return body()
    }

    var peak: Int { highest.load(ordering: .relaxed) }
}

/// A meeting of the first `count` pieces of work to arrive: each waits until all of them have
/// arrived, or 10 s have passed. Work that must run (or be pending) side by side proves it by
/// meeting, however slowly a loaded machine starts it; had it not run side by side, it would
/// wait out the 10 s, which the meeting counts. Arrivals after the meeting go on at once.
/// (Atomics and a `DispatchGroup`, which ThreadSanitizer sees; it does not see `Mutex`.)
final class Meeting: Sendable {
    private let count: Int
    private let arrived = Atomic(0)
    private let isOver = Atomic(false)
    private let timedOut = Atomic(0)
    private let over = DispatchGroup()

    init(of count: Int) {
        self.count = count
        over.enter()
        Thread.detachNewThread { [self] in
            Thread.sleep(forTimeInterval: 10)
            if end() { timedOut.store(arrived.load(ordering: .relaxed), ordering: .relaxed) }
        }
    }

    /// Ends the meeting; `false` when it was over already.
    private func end() -> Bool {
        guard isOver.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return false }
        over.leave()
        return true
    }

    private func arrive() {
        if arrived.add(1, ordering: .relaxed).newValue == count { _ = end() }
    }

    /// Arrives, and runs `proceed` on a global queue once the meeting is over.
    func arrive(then proceed: @escaping @Sendable () -> Void) {
        arrive()
        over.notify(queue: .global(), execute: proceed)
    }

    /// Arrives, and blocks until the meeting is over.
    func arriveAndWait() {
        arrive()
        over.wait()
    }

    /// How many arrivals waited out the 10 s: none unless the work never ran side by side.
    var waitsThatTimedOut: Int { timedOut.load(ordering: .relaxed) }
}

/// The completions of a wave of callback tasks, called with their indices from a thread of
/// their own once every task of the wave has left its completion, or after 10 s. A task's own
/// code only stores its completion and sets a flag, with no lock and no allocation: arming a
/// timer instead can sleep on Dispatch's and ThreadSanitizer's locks, which a collection's
/// looks rightly count as a task that blocks, and answer with more lanes.
///
/// `@unchecked Sendable`: each slot is written once, by one task, before that task sets the
/// slot's flag with release ordering; the calling thread reads a slot only once it has seen
/// its flag with acquire ordering.
final class CompletionWave: @unchecked Sendable {
    private let count: Int
    private let completions: UnsafeMutablePointer<(@Sendable (Int) -> Void)?>
    private let isLeft: UnsafeMutablePointer<Atomic<Bool>>
    private let left = Atomic(0)
    private let timedOut = Atomic(0)

    init(count: Int) {
        self.count = count
        completions = .allocate(capacity: count)
        completions.initialize(repeating: nil, count: count)
        isLeft = .allocate(capacity: count)
        for index in 0..<count { (isLeft + index).initialize(to: Atomic(false)) }
        let deadline = DispatchTime.now() + 10
        Thread.detachNewThread { [self] in
            while left.load(ordering: .relaxed) < count && DispatchTime.now() < deadline { usleep(1_000) }
            if left.load(ordering: .relaxed) < count {
                timedOut.store(left.load(ordering: .relaxed), ordering: .relaxed)
            }
            var called = [Bool](repeating: false, count: count)
            var calledCount = 0
            while calledCount < count {
                for index in 0..<count where !called[index] && isLeft[index].load(ordering: .acquiring) {
                    called[index] = true
                    calledCount += 1
                    completions[index]?(index)
                }
                if calledCount < count { usleep(1_000) }
            }
        }
    }

    deinit {
        completions.deinitialize(count: count)
        completions.deallocate()
        isLeft.deinitialize(count: count)
        isLeft.deallocate()
    }

    /// Leaves the completion of task `index`, to be called with `index`.
    func leave(_ index: Int, _ completion: @escaping @Sendable (Int) -> Void) {
        completions[index] = completion
        isLeft[index].store(true, ordering: .releasing)
        left.add(1, ordering: .relaxed)
    }

    /// How many tasks had left their completions when the wave gave up waiting for the rest:
    /// none unless the tasks could not all be pending at once.
    var waitsThatTimedOut: Int { timedOut.load(ordering: .relaxed) }
}

/// A flag that one thread sets and others read.
final class Flag: Sendable {
    private let value = Atomic(false)

    func set() { value.store(true, ordering: .releasing) }

    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// A task that its own work can reach.
final class TaskBox: Sendable {
    let task = Locked<ThrowableTask<Int>?>(nil)
}

/// A list that several threads append to.
final class LockedList<Element: Sendable>: Sendable {
    private let elements = Locked<[Element]>([])

    func append(_ element: Element) {
        elements.withLock { $0.append(element) }
    }

    var values: [Element] { elements.withLock { $0 } }
}

/// A value behind an `NSLock`, which ThreadSanitizer understands: `Synchronization.Mutex` is
/// invisible to it on Linux, so threads that take turns on one look like a race to it.
final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
