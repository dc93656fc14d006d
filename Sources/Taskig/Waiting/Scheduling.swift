import Dispatch
import Foundation

/// Starting a run later, on its queue, without anyone blocking for it.
@usableFromInline
enum Scheduling {
    /// Delays are capped here (about 31 years) so that huge values cannot overflow a
    /// `DispatchTime`.
    @usableFromInline
    static let longestDelay: TimeInterval = 1e9

    @inlinable
    static func start<Value>(_ cell: CompletionCell<Value>, on queue: DispatchQueue, after delay: TimeInterval) {
        precondition(!delay.isNaN, "async(delayBy:) was given NaN; pass a number of seconds")
        if delay > 0 {
            queue.asyncAfter(deadline: .now() + min(delay, longestDelay)) { cell.startIfNeeded() }
        } else {
            queue.async { cell.startIfNeeded() }
        }
    }
}
