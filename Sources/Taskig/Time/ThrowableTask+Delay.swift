import Dispatch
import Foundation

extension ThrowableTask where T == Void {
    /// A task that finishes `seconds` after it starts, without holding a thread meanwhile.
    ///
    /// A delay of zero or less finishes at once. Cancelling it releases its waiters at once.
    ///
    /// ```swift
    /// let later = ThrowableTask.delay(0.5).map { "half a second later" }
    /// ```
    public static func delay(_ seconds: TimeInterval) -> ThrowableTask<Void> {
        requireCorrectUse(!seconds.isNaN, "ThrowableTask.delay(_:) was given NaN; pass a number of seconds")
        let delay = min(max(seconds, 0), Scheduling.longestDelay)
        return ThrowableTask(executionQueue: QueueAffinity.defaultGlobalQueue, cancellationToken: CancellationToken()) {
            completion in
            Scheduling.after(delay) { completion(.success(())) }
        }
    }
}
