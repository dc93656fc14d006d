import Dispatch

/// Runs tasks of different result types in parallel and returns all their values, as a
/// tuple in argument order.
///
/// Each task runs as a child of a run of this wait: the first failure is thrown as soon as
/// it is known, and the runs still going are cancelled. Blocks like
/// ``ThrowableTaskType/await()``; on the main thread the main queue keeps running meanwhile.
/// Called from a serial queue, the tasks that run on that queue run on the calling thread,
/// one after another, once the others have started.
///
/// ```swift
/// let (user, avatar, settings) = try awaitAll(fetchUser(id), fetchAvatar(id), loadSettings())
/// ```
@available(*, noasync, message: "it blocks the thread; use 'try await ThrowableTask { try awaitAll(t1, t2) }.value'")
public func awaitAll<each Work: ThrowableTaskType>(
    _ tasks: repeat each Work
) throws -> (repeat (each Work).ResultType) {
    let run = Run(parent: CurrentRun.run, cancellable: true)
    defer { run.close() }
    var count = 0
    for _ in repeat each tasks { count += 1 }
    let outcome = FirstFailureOrAll(expecting: count)
    let startedAway = (repeat launchUnlessOnThisQueue(each tasks, parent: run))
    let launched = (repeat (each startedAway) ?? launchHere(each tasks, parent: run))
    for run in repeat each launched {
        switch run {
        case .finished(let result): outcome.record(result.map { _ in () })
        case .pending(let cell, _): cell.whenComplete { result in outcome.record(result.map { _ in () }) }
        }
    }
    if let failure = BlockingWait.value(of: outcome.cell)! {
        run.cancel()
        throw failure
    }
    return (repeat try (each launched).outcome!.get())
}

/// A run of `task` started away from this thread, or `nil` when the task's queue is a serial
/// queue this thread is on: sent there, it would wait behind this wait for good, so only this
/// thread can run it.
private func launchUnlessOnThisQueue<Work: ThrowableTaskType>(
    _ task: Work, parent: Run
) -> RunLaunch.Launched<Work.ResultType>? {
    if let (queue, kind) = ThrowingLaneWork<Work>.nonGlobalQueue(of: task), QueueAffinity.isCurrent(queue, kind: kind) {
        return nil
    }
    return RunLaunch.launch(task, parent: parent, start: .away(after: 0))
}

/// A run of `task`, whose queue is a serial queue this thread is on, run on this thread: the
/// work itself, or, for a future, the work `start()` sent to that queue.
private func launchHere<Work: ThrowableTaskType>(_ task: Work, parent: Run) -> RunLaunch.Launched<Work.ResultType> {
    let launched = RunLaunch.launch(task, parent: parent)
    if case .pending = launched { RunWait.helpStart(of: task, hasDeadline: false) }
    return launched
}

extension RunLaunch.Launched {
    /// The outcome, once the run has finished.
    var outcome: Result<Value, Error>? {
        switch self {
        case .finished(let outcome): return outcome
        case .pending(let cell, _): return cell.completedValue
        }
    }
}

/// Completes with the first failure reported to it, or with `nil` once `expecting`
/// successes were.
struct FirstFailureOrAll: Sendable {
    let cell = CompletionCell<Error?>()
    private let remaining: LockedState<Int>

    init(expecting count: Int) {
        remaining = LockedState(count)
        if count == 0 { cell.complete(with: nil) }
    }

    func record(_ result: Result<Void, Error>) {
        switch result {
        case .failure(let error):
            cell.complete(with: error)
        case .success:
            let left = remaining.withLock { remaining in
                remaining -= 1
                return remaining
            }
            if left == 0 { cell.complete(with: nil) }
        }
    }
}
