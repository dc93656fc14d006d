import Dispatch
import Foundation

/// One thread that looks in on every collection wait in progress, so that each can add
/// lanes when the ones it has are stuck (see ``BoundedConcurrentRun``).
///
/// A Dispatch timer per wait would do the same, but arming one costs the waiting thread
/// several microseconds here, as much as running a few hundred short tasks. Joining the
/// clock costs a lock, and a semaphore signal only when the clock is parked or set to wake
/// more than a tick (a millisecond) later than the new look is due. Each look decides
/// itself when the next one is due, or that there is nothing left to watch.
///
/// With nothing to watch, the clock wakes every tick for a tenth of a second after the last
/// watch began, and only then parks until signalled. So waits that follow each other,
/// the usual pattern, join a clock that is ticking: their first look may come up to a tick
/// late, but they never pay for a signal and a wake-up, which here cost about as much as a
/// wait over a thousand short tasks.
///
/// The clock's thread starts with the first watched wait and stays, parked, afterwards.
@usableFromInline
final class LaneRampClock: Sendable {
    /// A look at one wait: it returns the seconds until the next look, or `nil` when the
    /// wait needs no more looks.
    @usableFromInline
    typealias Look = @Sendable () -> Double?

    private struct Watch {
        let due: UInt64
        let look: Look
    }

    private struct State {
        var watches: [Watch] = []
        var threadStarted = false
        /// When the clock's thread will next wake by itself; `nil` while it sleeps until
        /// signalled.
        var wakesAt: UInt64?
        /// When the last watch began.
        var lastWatchBegan: UInt64 = 0
    }

    /// How late a new watch's first look may come, in nanoseconds, rather than signal the
    /// clock.
    private let tick: UInt64
    /// How long after the last watch began the clock keeps ticking with nothing to watch.
    private let tickingPeriod: UInt64

    @usableFromInline
    static let shared = LaneRampClock()

    /// - Parameters:
    ///   - tick: how late, in nanoseconds, a new watch's first look may come.
    ///   - tickingPeriod: how long, in nanoseconds, after the last watch began the clock
    ///     keeps ticking with nothing to watch.
    init(tick: UInt64 = 1_000_000, tickingPeriod: UInt64 = 100_000_000) {
        self.tick = tick
        self.tickingPeriod = tickingPeriod
    }

    /// Whether the clock's thread sleeps until a new watch signals it.
    var isParked: Bool {
        state.withLock { $0.threadStarted && $0.wakesAt == nil }
    }

    private let state = LockedState(State())
    private let wakeUp = DispatchSemaphore(value: 0)

    /// Calls `look` about `seconds` from now, on the clock's thread, and then as often as it
    /// asks. A look must be short and must never block: every other wait's look queues
    /// behind it.
    @usableFromInline
    func watch(after seconds: Double, _ look: @escaping Look) {
        let now = Self.now
        let due = now + UInt64(seconds * 1e9)
        let (startsThread, signals) = state.withLock { state -> (Bool, Bool) in
            state.watches.append(Watch(due: due, look: look))
            state.lastWatchBegan = now
            let startsThread = !state.threadStarted
            state.threadStarted = true
            let signals = !startsThread && (state.wakesAt.map { $0 > due + tick } ?? true)
            if signals { state.wakesAt = due }
            return (startsThread, signals)
        }
        if startsThread {
            let thread = Thread { [self] in self.run() }
            thread.name = "taskig.lane-ramp"
            thread.start()
        } else if signals {
            wakeUp.signal()
        }
    }

    private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    private func run() {
        while true {
            let now = Self.now
            let due: [Look] = state.withLock { state in
                let (ready, waiting) = state.watches.reduce(into: ([Look](), [Watch]())) { split, watch in
                    if watch.due <= now { split.0.append(watch.look) } else { split.1.append(watch) }
                }
                state.watches = waiting
                return ready
            }
            var again: [Watch] = []
            for look in due {
                if let seconds = look() { again.append(Watch(due: now + UInt64(seconds * 1e9), look: look)) }
            }
            let wakesAt: UInt64? = state.withLock { state in
                state.watches += again
                let ticks = now - min(now, state.lastWatchBegan) < tickingPeriod
                state.wakesAt = state.watches.map(\.due).min() ?? (ticks ? now + tick : nil)
                return state.wakesAt
            }
            // A signal sent while this thread was looking only makes the next wait return
            // early, and the loop looks again: no look is ever missed.
            if let wakesAt {
                _ = wakeUp.wait(timeout: DispatchTime(uptimeNanoseconds: wakesAt))
            } else {
                wakeUp.wait()
            }
        }
    }
}
