import Dispatch
import Foundation

extension ThrowableTask where T == Void {
    /// A task that finishes `seconds` after it starts, without holding a thread meanwhile.
    ///
    /// A delay of zero or less finishes at once. A run that is cancelled releases its waiters
    /// at once.
    ///
    /// ```swift
    /// let later = ThrowableTask.delay(0.5).map { "half a second later" }
    /// ```
    public static func delay(_ seconds: TimeInterval) -> ThrowableTask<Void> {
        requireCorrectUse(!seconds.isNaN, "ThrowableTask.delay(_:) was given NaN; pass a number of seconds")
        return ThrowableTask(body: TaskBody(onDefaultQueue: .source(DelayWork(seconds: seconds))))
    }
}

/// The work of ``ThrowableTask/delay(_:)``.
final class DelayWork: SourceWork {
    let seconds: TimeInterval

    init(seconds: TimeInterval) {
        self.seconds = seconds
    }

    func start(reportingTo completion: @escaping @Sendable (Result<Void, Error>) -> Void) {
        guard seconds > 0 else {
            completion(.success(()))
            return
        }
        Scheduling.after(seconds) { completion(.success(())) }
    }
}
