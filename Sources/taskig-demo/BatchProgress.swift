import Synchronization

/// How far a batch has got, updated by the tasks from any thread.
///
/// Besides the count of finished items it keeps the number running now and the most that
/// ever ran at once, which shows that `awaitAll(concurrency:)` really holds to its bound.
final class BatchProgress: Sendable {
    /// A consistent reading of the counters.
    struct Snapshot {
        var done = 0
        var running = 0
        var peakRunning = 0
    }

    private let state = Mutex(Snapshot())

    /// Call when an item starts.
    func begin() {
        state.withLock { state in
            state.running += 1
            state.peakRunning = max(state.peakRunning, state.running)
        }
    }

    /// Call when an item ends, however it ends.
    func end() {
        state.withLock { state in
            state.running -= 1
            state.done += 1
        }
    }

    /// The counters now.
    var snapshot: Snapshot { state.withLock { $0 } }
}
