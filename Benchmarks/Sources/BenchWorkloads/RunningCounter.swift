import Synchronization

/// How many are running now, and the most that ever were.
public final class RunningCounter: Sendable {
    private let running = Atomic<Int>(0)
    private let highest = Atomic<Int>(0)

    /// A counter with nothing running.
    public init() {}

    /// Counts one more running.
    public func enter() {
        let now = running.add(1, ordering: .relaxed).newValue
        var seen = highest.load(ordering: .relaxed)
        while now > seen {
            let (exchanged, original) = highest.compareExchange(expected: seen, desired: now, ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
    }

    /// Counts one fewer running.
    public func leave() { running.subtract(1, ordering: .relaxed) }

    /// The most that ever ran at once.
    public var peak: Int { highest.load(ordering: .relaxed) }

    /// The most that ran at once since the counter was made or since the last call; the
    /// count starts again from those running now.
    public func takePeak() -> Int {
        highest.exchange(running.load(ordering: .relaxed), ordering: .relaxed)
    }
}
