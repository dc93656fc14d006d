import Dispatch

/// Looks at every collection wait in progress once a millisecond (see ``Batch/tick()``), on
/// Taskig's timer queue.
///
/// One Dispatch timer serves every wait. It ticks while some wait wants looks and is put off
/// to the distant future when none does, so an idle process has no timer firing and no
/// thread of Taskig's waiting for one.
@usableFromInline
final class BatchTicker: Sendable {
    @usableFromInline
    static let shared = BatchTicker()

    /// How often the ticker looks.
    static let period = DispatchTimeInterval.milliseconds(1)

    private struct State {
        var watched: [any TickingBatch] = []
        var isTicking = false
    }

    private let state = LockedState(State())
    /// Only scheduled, from under `state`'s lock, or fired on the timer queue.
    private nonisolated(unsafe) let timer: DispatchSourceTimer

    private init() {
        timer = DispatchSource.makeTimerSource(queue: Scheduling.timerQueue)
        timer.schedule(deadline: .distantFuture)
        timer.setEventHandler { BatchTicker.shared.tick() }
        timer.activate()
    }

    /// Looks at `batch` every tick from now on, until its ``TickingBatch/tick()`` returns
    /// `false`.
    @usableFromInline
    func watch(_ batch: any TickingBatch) {
        state.withLock { state in
            state.watched.append(batch)
            guard !state.isTicking else { return }
            state.isTicking = true
            timer.schedule(deadline: .now() + Self.period, repeating: Self.period)
        }
    }

    private func tick() {
        let watched = state.withLock { $0.watched }
        let done = watched.filter { !$0.tick() }.map { ObjectIdentifier($0) }
        state.withLock { state in
            if !done.isEmpty { state.watched.removeAll { done.contains(ObjectIdentifier($0)) } }
            if state.watched.isEmpty && state.isTicking {
                state.isTicking = false
                timer.schedule(deadline: .distantFuture)
            }
        }
    }
}

/// A collection wait the ticker looks at.
@usableFromInline
protocol TickingBatch: AnyObject, Sendable {
    /// One look; returns whether the batch wants more.
    func tick() -> Bool
}
