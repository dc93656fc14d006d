import Dispatch

/// Runs tasks of different result types in parallel and returns all their values, as a
/// tuple in argument order.
///
/// The first failure is thrown as soon as it is known, and the tasks still running are
/// cancelled. Blocks like ``ThrowableTaskType/await()``; on the main thread the main queue
/// keeps running meanwhile.
///
/// ```swift
/// let (user, avatar, settings) = try awaitAll(fetchUser(id), fetchAvatar(id), loadSettings())
/// ```
public func awaitAll<each Work: ThrowableTaskType>(
    _ tasks: repeat each Work
) throws -> (repeat (each Work).ResultType) {
    let futures = (repeat (each tasks).start())
    var count = 0
    for _ in repeat each tasks { count += 1 }
    let outcome = FirstFailureOrAll(expecting: count)
    for future in repeat each futures {
        future.cell.whenComplete { result in outcome.record(result.map { _ in () }) }
    }
    if let failure = BlockingWait.value(of: outcome.cell)! {
        for future in repeat each futures { future.cancel() }
        throw failure
    }
    return (repeat try (each futures).cell.completedValue!.get())
}

/// Completes with the first failure reported to it, or with `nil` once `expecting`
/// successes were.
struct FirstFailureOrAll: Sendable {
    let cell = CompletionCell<Error?>(work: { _ in })
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
