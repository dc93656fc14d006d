import Synchronization

/// How far a batch has got, updated by the tasks from any thread.
///
/// Besides the count of finished items it keeps the number running now and the most that
/// ever ran at once, which shows that `awaitAll(concurrency:)` really holds to its bound.
/// The counters are atomics, which ThreadSanitizer understands (on Linux it cannot see
/// `Synchronization.Mutex`, and reports races that are not there).
final class BatchProgress: Sendable {
    /// A reading of the counters.
    struct Snapshot {
        var done = 0
        var running = 0
        var peakRunning = 0
    }

    private let done = Atomic(0)
    private let running = Atomic(0)
    private let peakRunning = Atomic(0)

    /// Call when an item starts.
    func begin() {
        let now = running.add(1, ordering: .relaxed).newValue
        var peak = peakRunning.load(ordering: .relaxed)
        while now > peak {
            let (exchanged, original) = peakRunning.compareExchange(
                expected: peak, desired: now, ordering: .relaxed)
            if exchanged { break }
            peak = original
        }
    }

    /// Call when an item ends, however it ends.
    func end() {
        running.subtract(1, ordering: .relaxed)
        done.add(1, ordering: .relaxed)
    }

    /// The counters now.
    var snapshot: Snapshot {
        Snapshot(
            done: done.load(ordering: .relaxed),
            running: running.load(ordering: .relaxed),
            peakRunning: peakRunning.load(ordering: .relaxed)
        )
    }
}
