import Dispatch
import Synchronization

/// One iteration of a ``TaskCompletions`` sequence: starts a batch of the tasks on the first
/// call to ``next()``, then hands out their outcomes in the order they settle.
///
/// The loop owns its batch: when the loop is dropped before it handed out every outcome (a
/// `break`, a thrown error, an iterator let go), it ends the batch, which cancels the runs
/// still going and starts no more tasks.
///
/// Where the loop stands is one value, ``State``. Only the iterator that owns the loop uses it,
/// on one thread at a time (an iterator is not `Sendable`), so it is exempt from Swift's
/// dynamic exclusivity checks, which would otherwise cost more per outcome than handing it out
/// (row 12a).
@usableFromInline
final class CompletionsLoop<Element: ThrowableTaskType> {
    @usableFromInline
    typealias Outcome = (offset: Int, result: Result<Element.ResultType, Error>)
    @usableFromInline
    typealias LoopBatch = Batch<ThrowingLaneWork<Element>, CompletionsSink<Element.ResultType>>

    /// The tasks, where their lanes run, and how many at once.
    @usableFromInline
    let completions: TaskCompletions<Element>
    /// The number of tasks.
    @usableFromInline
    let count: Int
    @usableFromInline
    @exclusivity(unchecked)
    var state = State()

    /// Where the loop stands.
    @usableFromInline
    struct State {
        @usableFromInline
        var phase = Phase.notStarted
        /// How many outcomes the loop handed out in the order they settled.
        @usableFromInline
        var position = 0
        /// The sink's memory, while the loop only reads it (see ``CompletionsSink/Reader``).
        @usableFromInline
        var reader: CompletionsSink<Element.ResultType>.Reader?

        @inlinable
        init() {}
    }

    @usableFromInline
    enum Phase {
        /// No element was asked for yet.
        case notStarted
        /// Handing out the outcomes as the tasks settle.
        case handingOut(Running)
        /// The batch was cancelled: handing out what is left, last first (see
        /// ``outcomesLeft(in:)``).
        case handingOutLeftovers(Running, [Outcome])
        /// Every outcome was handed out, and the batch let go of.
        case over
    }

    /// The loop's batch, and the lane the loop runs tasks on itself: every task, when it must
    /// run them in place; beside the other lanes, when it runs on one of Taskig's workers (a
    /// loop nested in a task), where the pool may have no thread for them. It runs the next
    /// task whenever the next outcome has not settled yet.
    @usableFromInline
    struct Running {
        @usableFromInline
        let batch: LoopBatch
        @usableFromInline
        var callerLane: BatchLane?

        @inlinable
        init(batch: LoopBatch, callerLane: BatchLane?) {
            self.batch = batch
            self.callerLane = callerLane
        }
    }

    @inlinable
    init(_ completions: TaskCompletions<Element>) {
        self.completions = completions
        count = completions.tasks.count
    }

    deinit {
        switch state.phase {
        case .handingOut(let running), .handingOutLeftovers(let running, _):
            state.phase = .over
            running.batch.end(cancelled: true)
            finish(running)
        case .notStarted, .over:
            break
        }
    }

    /// The next outcome; when it has settled already and is not the last, straight from the
    /// sink's memory.
    @inlinable
    func next() -> Outcome? {
        if let reader = state.reader, state.position &+ 1 < count {
            let tagged = reader.indexPlusOne(at: state.position)
            if tagged != 0 {
                state.position &+= 1
                let index = tagged &- 1
                return (index, reader.take(index))
            }
        }
        return nextWaitingIfNeeded()
    }

    /// The next outcome the long way: starting the batch, running a task in place, waiting,
    /// handing out what is left after a cancellation, or ending the loop.
    @inlinable
    @inline(never)
    func nextWaitingIfNeeded() -> Outcome? {
        switch state.phase {
        case .notStarted:
            return start()
        case .handingOut(let running):
            return nextSettled(running)
        case .handingOutLeftovers(let running, var left):
            // Over while it shrinks, so that the list has no other reference to copy it for.
            state.phase = .over
            guard let outcome = left.popLast() else {
                finish(running)
                return nil
            }
            state.phase = .handingOutLeftovers(running, left)
            return outcome
        case .over:
            return nil
        }
    }

    /// Starts the batch, and hands out its first outcome. Inlinable, as ``next()``: the batch
    /// is made where the task types are concrete, so that its lanes run code specialized for
    /// them (see ``Batch/laneLoop``).
    @inlinable
    func start() -> Outcome? {
        guard count > 0 else {
            state.phase = .over
            return nil
        }
        let batch = Batch(
            ThrowingLaneWork<Element>.self, tasks: completions.tasks, lanesOn: completions.queue,
            concurrency: completions.concurrency,
            sink: CompletionsSink<Element.ResultType>(count: count), operation: "completions",
            site: completions.site)
        let callerLane = batch.start(callerMayRunALane: false)
        state.phase = .handingOut(Running(batch: batch, callerLane: callerLane))
        if callerLane == nil { state.reader = CompletionsSink.Reader(batch.sink) }
        return next()
    }

    /// The next outcome to settle, running the next task first when the loop has a lane of its
    /// own, and waiting for it.
    @inlinable
    func nextSettled(_ running: Running) -> Outcome? {
        var running = running
        let batch = running.batch
        let sink = batch.sink
        if let callerLane = running.callerLane, sink.entry(state.position).pointee.load(ordering: .relaxed) == 0,
            !batch.runNextTaskInPlace(on: callerLane)
        {
            running.callerLane = nil
            state.phase = .handingOut(running)
        }
        let subject = {
            WaitSubject(site: batch.site, target: nil, work: .collection(batch, nextOutcomeOnly: true))
        }
        guard let index = sink.indexSettled(at: state.position, for: subject) else {
            state.reader = nil
            state.phase = .handingOutLeftovers(running, outcomesLeft(in: batch))
            return nextWaitingIfNeeded()
        }
        let outcome = sink.take(index)
        state.position += 1
        if state.position == count {
            state.phase = .over
            finish(running)
            // Every task has settled, so the lanes are only leaving their loops. Once they
            // have, the batch's tasks are the caller's to free, rather than a lane's on a worker
            // at the same time as the caller's next work (row 12: see RESULTS.md).
            BlockingWait.value(of: batch.finished) {
                WaitSubject(site: batch.site, target: nil, work: .collection(batch, nextOutcomeOnly: false))
            }
            _ = batch.takeTasksOnceSettled()
        }
        return (index, outcome)
    }

    /// Once the batch was cancelled: the outcomes that had settled without being handed out
    /// yet, then every task that had not settled, as cancelled, in input order; last first.
    @usableFromInline
    func outcomesLeft(in batch: LoopBatch) -> [Outcome] {
        let sink = batch.sink
        let ready = sink.takeReady(after: state.position)
        var handedOut = [Bool](repeating: false, count: count)
        for index in sink.indicesTaken(before: state.position) { handedOut[index] = true }
        for (index, _) in ready { handedOut[index] = true }
        let cancelled = handedOut.indices.filter { !handedOut[$0] }.map { index -> Outcome in
            (index, .failure(CancellableTaskError.taskWasCancelled))
        }
        return (ready + cancelled).reversed()
    }

    /// Lets go of the batch, once the loop is over: what the loop took is the sink's to know
    /// when it frees the rest.
    @usableFromInline
    func finish(_ running: Running) {
        state.reader = nil
        running.batch.sink.takenPrefix.store(state.position, ordering: .relaxed)
        if let callerLane = running.callerLane { running.batch.endLane(callerLane) }
        running.batch.close()
    }
}
