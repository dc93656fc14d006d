import Dispatch
import Synchronization

/// One iteration of a ``TaskCompletions`` sequence: starts a batch of the tasks on the first
/// call to ``next()``, then hands out their outcomes in the order they settle.
///
/// The loop owns its batch: when the loop is dropped before it handed out every outcome (a
/// `break`, a thrown error, an iterator let go), it ends the batch, which cancels the runs
/// still going and starts no more tasks.
///
/// Only the iterator that owns the loop uses it, on one thread at a time (an iterator is not
/// `Sendable`), so its state is exempt from Swift's dynamic exclusivity checks, which would
/// otherwise cost more per outcome than handing it out.
@usableFromInline
final class CompletionsLoop<Element: ThrowableTaskType> {
    @usableFromInline
    typealias Outcome = (offset: Int, result: Result<Element.ResultType, Error>)
    @usableFromInline
    typealias LoopBatch = Batch<ThrowingLaneWork<Element>, CompletionsSink<Element.ResultType>>

    /// The tasks, where their lanes run, and how many at once.
    @usableFromInline
    let completions: TaskCompletions<Element>
    @usableFromInline
    @exclusivity(unchecked)
    var batch: LoopBatch?
    /// The lane of a loop that runs tasks itself: every task, when it must run them in place;
    /// beside the other lanes, when it runs on one of Taskig's workers (a loop nested in a
    /// task), where the pool may have no thread for them. It runs the next task whenever the
    /// next outcome has not settled yet.
    @usableFromInline
    @exclusivity(unchecked)
    var callerLane: BatchLane?
    /// How many outcomes the loop handed out in the order they settled.
    @usableFromInline
    @exclusivity(unchecked)
    var position = 0
    /// What is left to hand out once the batch was cancelled, last first.
    @usableFromInline
    @exclusivity(unchecked)
    var leftAfterCancellation: [Outcome]?
    @usableFromInline
    @exclusivity(unchecked)
    var isOver = false
    /// The sink's positions, once the batch started, when the loop only reads them: no lane
    /// of its own to run and no cancellation seen. The batch keeps the sink alive, so the
    /// loop reads it through this pointer, with no reference to count per outcome.
    @usableFromInline
    @exclusivity(unchecked)
    var readOnlyOrder: UnsafeMutablePointer<Atomic<Int>>?
    /// The sink's outcomes, once the batch started.
    @usableFromInline
    @exclusivity(unchecked)
    var settledOutcomes: UnsafeMutablePointer<Result<Element.ResultType, Error>>?
    /// The sink's ``CompletionsSink/stripe``, once the batch started.
    @usableFromInline
    @exclusivity(unchecked)
    var orderStripe = 0
    /// The number of tasks.
    @usableFromInline
    let count: Int

    @inlinable
    init(_ completions: TaskCompletions<Element>) {
        self.completions = completions
        count = completions.tasks.count
    }

    deinit {
        guard let batch, !isOver else { return }
        batch.end(cancelled: true)
        end(batch)
    }

    /// The next outcome; when it has settled already and is not the last, straight from the
    /// sink's memory.
    @inlinable
    func next() -> Outcome? {
        if let readOnlyOrder, position &+ 1 < count {
            let tagged = CompletionsSink<Element.ResultType>.entry(position, in: readOnlyOrder, stripe: orderStripe)
                .pointee.load(ordering: .acquiring)
            if tagged != 0 {
                position &+= 1
                let index = tagged &- 1
                return (index, settledOutcomes.unsafelyUnwrapped.advanced(by: index).move())
            }
        }
        return nextWaitingIfNeeded()
    }

    /// The next outcome the long way: starting the batch, running a task in place, waiting,
    /// handing out what is left after a cancellation, or ending the loop.
    @inlinable
    @inline(never)
    func nextWaitingIfNeeded() -> Outcome? {
        guard !isOver else { return nil }
        guard let batch else {
            guard count > 0 else {
                isOver = true
                return nil
            }
            let batch = Batch(
                ThrowingLaneWork<Element>.self, tasks: completions.tasks, concurrency: completions.concurrency,
                sink: CompletionsSink<Element.ResultType>(count: count))
            self.batch = batch
            callerLane = batch.start(lanesOn: completions.queue, callerMayRunALane: false)
            settledOutcomes = batch.sink.outcomes
            if callerLane == nil { readOnlyOrder = batch.sink.order }
            orderStripe = batch.sink.stripe
            return next()
        }
        if leftAfterCancellation != nil { return nextLeftAfterCancellation(of: batch) }
        let sink = batch.sink
        if let callerLane, sink.entry(position).pointee.load(ordering: .relaxed) == 0,
            !batch.runNextTaskInPlace(on: callerLane)
        {
            self.callerLane = nil
        }
        guard let index = sink.indexSettled(at: position) else {
            readOnlyOrder = nil
            leftAfterCancellation = outcomesLeft(in: batch)
            return nextLeftAfterCancellation(of: batch)
        }
        let outcome = sink.take(index)
        position += 1
        if position == count {
            isOver = true
            end(batch)
            // Every task has settled, so the lanes are only leaving their loops. Once they
            // have, the batch's tasks are the caller's to free, rather than a lane's on a worker
            // at the same time as the caller's next work (a 100k-task wait right after a loop
            // of 100k took half as long again).
            _ = BlockingWait.value(of: batch.finished)
            _ = batch.takeTasksOnceSettled()
        }
        return (index, outcome)
    }

    /// Once the batch was cancelled: the outcomes that had settled without being handed out
    /// yet, then every task that had not settled, as cancelled, in input order.
    @usableFromInline
    func outcomesLeft(in batch: LoopBatch) -> [Outcome] {
        let sink = batch.sink
        let ready = sink.takeReady(after: position)
        var handedOut = [Bool](repeating: false, count: count)
        for index in sink.indicesTaken(before: position) { handedOut[index] = true }
        for (index, _) in ready { handedOut[index] = true }
        let cancelled = handedOut.indices.filter { !handedOut[$0] }.map { index -> Outcome in
            (index, .failure(CancellableTaskError.taskWasCancelled))
        }
        return (ready + cancelled).reversed()
    }

    @usableFromInline
    func nextLeftAfterCancellation(of batch: LoopBatch) -> Outcome? {
        guard let outcome = leftAfterCancellation?.popLast() else {
            isOver = true
            end(batch)
            return nil
        }
        return outcome
    }

    /// Lets go of the batch: what the loop took is the sink's to know when it frees the rest.
    @usableFromInline
    func end(_ batch: LoopBatch) {
        batch.sink.takenPrefix.store(position, ordering: .relaxed)
        if let callerLane {
            self.callerLane = nil
            batch.endLane(callerLane)
        }
        batch.close()
    }
}
