import Foundation

/// The failures Taskig itself reports, as opposed to errors thrown by the work inside a task.
///
/// Match a case with pattern matching:
///
/// ```swift
/// do {
///     try slowTask.await(timeout: 0.5)
/// } catch TaskigError.timedOut {
///     print("gave up")
/// }
/// ```
public enum TaskigError: Error, CustomStringConvertible, LocalizedError {
    /// `awaitFirst`, `awaitFirstResult` or `awaitAny` was given no tasks, so there is no first result.
    case emptySequence
    /// A wait with a timeout gave up before the task finished. Its run was cancelled; the task
    /// was not, and can be awaited again.
    case timedOut
    /// `awaitAny` found no task that succeeded. Carries every task's error, in input order.
    case allFailed([Error])
    /// A future was awaited from inside its own work (or work nested in it), which could never
    /// end: the cycle of one run. A cold task awaited from its own work is not this: each wait
    /// makes a new run.
    case awaitedFromItsOwnWork
    /// Waits that wait for each other, so that none of them could ever end: future A's work
    /// waits for future B, whose work waits for A, say, through any number of futures, chain
    /// steps, collection lanes and plain waits. Carries each wait of the cycle, the one that
    /// closed it first: its thread, where it was called, and what it waits for. The wait that
    /// would have closed the cycle throws this instead of parking for good; the others see it
    /// as the outcome of the work they wait for.
    ///
    /// ```swift
    /// } catch TaskigError.deadlock(let cycle) {
    ///     print(cycle.map(\.callSite))
    /// }
    /// ```
    case deadlock([WaitReport.Wait])
    /// The last reference to a ``Promise`` was released before anyone resolved, rejected or
    /// cancelled it, so its future could never have an outcome. Carries where the promise was
    /// made (`#fileID:#line`). The future fails with it, and every waiter and continuation of
    /// that future, present or later, gets it.
    ///
    /// Usually a callback API released its completion handler, and the promise with it, on a
    /// path that never calls it (an error, a cancellation). Match it with or without the place:
    ///
    /// ```swift
    /// do {
    ///     let data = try promise.future.await()
    /// } catch TaskigError.promiseDropped(let madeAt) {
    ///     print("nobody kept the promise made at \(madeAt)")
    /// }
    /// if case TaskigError.promiseDropped = error { retry() }
    /// ```
    case promiseDropped(madeAt: CallSite)
    /// The completion handler Taskig gave a callback task's work (the `done` of
    /// `ThrowableTask { done in … }`, the `completion` of a type's `action(completion:)`) was
    /// released without having been called, so the run could never end. Carries the task's
    /// type and its queue's label, as in `ThrowableTask<Int> on queue com.apple.root.default-qos`.
    ///
    /// The run fails with it, and so does whatever waits for the run (a collection wait counts
    /// it as that task's failure). Every path through the work must call the handler exactly
    /// once, errors and cancellation included:
    ///
    /// ```swift
    /// do {
    ///     try fetch.await()
    /// } catch TaskigError.callbackDropped(let task) {
    ///     print("\(task) forgot to call its completion handler")
    /// }
    /// if case TaskigError.callbackDropped = error { reportBug() }
    /// ```
    ///
    /// A ``Task``, which cannot fail, has no error to report this with: a debug build stops
    /// with a message that names the task instead, and an optimized build prints that message
    /// to standard error, while the run stays pending.
    case callbackDropped(task: String)

    /// What happened, and what to do about it.
    public var description: String {
        switch self {
        case .emptySequence:
            return "TaskigError.emptySequence: there were no tasks to wait for, so there is no first result; "
                + "check isEmpty before the wait"
        case .timedOut:
            return "TaskigError.timedOut: the task did not finish before the timeout, and its run was cancelled; "
                + "allow more time, or retry: the task itself can be awaited again"
        case .awaitedFromItsOwnWork:
            return "TaskigError.awaitedFromItsOwnWork: a future was awaited from inside its own work, "
                + "which would wait forever; await it from outside, or use its value directly"
        case .deadlock(let cycle):
            let waits = cycle.enumerated().map { index, wait in
                "\n  \(index + 1). \(wait.thread) at \(wait.callSite) waits for \(wait.waitsFor), whose work waits in "
                    + (index + 1 < cycle.count ? "\(index + 2)" : "1")
            }
            return "TaskigError.deadlock: \(cycle.count == 1 ? "a wait waits" : "\(cycle.count) waits wait") for work "
                + "that waits for \(cycle.count == 1 ? "it" : "each other"), so none could ever end:"
                + waits.joined()
                + "\nA future must not wait, directly or through the tasks it awaits, for a future that waits for it; "
                + "start one of them after the other, or pass the value it needs instead of its future"
        case .promiseDropped(let madeAt):
            return "TaskigError.promiseDropped: the promise made at \(madeAt) was released without being resolved, "
                + "so its future could never have an outcome; keep the promise until you resolve or reject it "
                + "on every path (errors and cancellation included), or reject it when giving up"
        case .callbackDropped(let task):
            return "TaskigError.callbackDropped: the completion handler of \(task) was released without being "
                + "called, so its run could never end; call the completion handler exactly once on every path "
                + "of the work, errors and cancellation included"
        case .allFailed(let errors):
            return "TaskigError.allFailed: all \(errors.count) tasks failed; first error: "
                + (errors.first.map { String(describing: $0) } ?? "none")
                + "; catch TaskigError.allFailed(let errors) for every task's error"
        }
    }

    /// The same text as ``description``, so that `error.localizedDescription`, which most
    /// programs print, explains the failure on every platform.
    public var errorDescription: String? { description }
}
