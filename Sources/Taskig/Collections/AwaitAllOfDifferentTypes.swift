import Dispatch

/// Runs tasks of different result types in parallel and returns all their values, as a
/// tuple in argument order.
///
/// Each task runs as a child of a run of this wait: the first failure is thrown as soon as
/// it is known, and the runs still going are cancelled. Blocks like
/// ``ThrowableTaskType/await(file:line:)``; on the main thread the main queue keeps running meanwhile.
/// Called from a serial queue, the tasks that run on that queue run on the calling thread,
/// one after another, once the others have started.
///
/// ```swift
/// let (user, avatar, settings) = try awaitAll(fetchUser(id), fetchAvatar(id), loadSettings())
/// ```
@available(*, noasync, message: "it blocks the thread; use 'try await ThrowableTask { try awaitAll(t1, t2) }.value'")
public func awaitAll<each Work: ThrowableTaskType>(
    _ tasks: repeat each Work,
    file: StaticString = #fileID,
    line: UInt = #line
) throws -> (repeat (each Work).ResultType) {
    let run = Run(parent: CurrentRun.run, cancellable: true)
    defer { run.close() }
    var count = 0
    for _ in repeat each tasks { count += 1 }
    let outcome = FirstFailureOrAll(expecting: count)
    let launched = (repeat RunLaunch.launch(each tasks, parent: run, start: .unwaited(after: 0)))
    for run in repeat each launched {
        switch run {
        case .finished(let result): outcome.record(result.map { _ in () })
        case .pending(let cell, _): cell.whenComplete { result in outcome.record(result.map { _ in () }) }
        }
    }
    // Any task's failure ends the wait: it is no edge of the wait-for graph.
    let failure = BlockingWait.value(of: outcome.cell) {
        WaitSubject(site: StaticCallSite(file, line), target: nil, work: .tasks(count: count))
    }
    if let failure {
        run.cancel()
        throw failure
    }
    return (repeat try (each launched).outcome!.get())
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
