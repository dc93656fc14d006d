import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The cancellation state an ``HTTPTask`` and all its copies share: whether it is cancelled,
/// and the `URLSessionTask`s its runs have open, so that cancelling reaches the network.
///
/// Cancelling is one-way. A run reserves a slot before it makes its `URLSessionTask`, fills
/// the slot before resuming it, and releases it when the `URLSessionTask` completes.
final class SessionTaskCancellation: Sendable {
    typealias Slot = UInt64

    private struct State {
        var isCancelled = false
        var nextSlot: Slot = 0
        var open: [Slot: URLSessionTask] = [:]
    }

    // Taskig's `LockedState`, not Synchronization.Mutex: on Linux the thread sanitizer
    // cannot see how a contended Mutex hands over, and reports races that cannot happen.
    private let state = LockedState(State())

    var isCancelled: Bool {
        state.withLock { $0.isCancelled }
    }

    /// A slot for one run's `URLSessionTask`; `nil` when the task is already cancelled.
    func reserveSlot() -> Slot? {
        state.withLock { state in
            guard !state.isCancelled else { return nil }
            defer { state.nextSlot += 1 }
            return state.nextSlot
        }
    }

    /// Records the run's `URLSessionTask` so that ``cancel()`` can reach it. Returns `false`
    /// when the task was cancelled since the slot was reserved: then the caller cancels the
    /// `URLSessionTask` itself.
    func fill(_ slot: Slot, with sessionTask: URLSessionTask) -> Bool {
        state.withLock { state in
            guard !state.isCancelled else { return false }
            state.open[slot] = sessionTask
            return true
        }
    }

    func release(_ slot: Slot) {
        _ = state.withLock { $0.open.removeValue(forKey: slot) }
    }

    /// Marks the task cancelled and cancels every open `URLSessionTask`. URLSession closes
    /// their connections and completes them with `URLError.cancelled`.
    func cancel() {
        let open = state.withLock { state in
            state.isCancelled = true
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        // Outside the lock: `cancel()` on a URLSessionTask takes URLSession's own locks.
        for sessionTask in open { sessionTask.cancel() }
    }
}
