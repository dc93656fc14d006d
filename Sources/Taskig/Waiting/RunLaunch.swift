import Dispatch
import Foundation

/// Starting one run of a task: every wait, collection lane, composed step, `async`, `value`
/// and future goes through here.
///
/// A run gets a ``Run`` object only when something could cancel it: its parent can be
/// cancelled, its task's other copies can cancel it for good, or whoever starts it may give
/// up on it (a deadline, a future). A run nothing can cancel leaves ``CurrentRun`` as it is
/// and costs no allocation; a value-returning closure run in place is then a plain call.
@usableFromInline
enum RunLaunch {
    /// How a run stands once started.
    @usableFromInline
    enum Launched<Value> {
        /// The work ran in place and finished.
        case finished(Result<Value, Error>)
        /// The outcome will complete this cell: the work's own, or
        /// ``CancellableTaskError/taskWasCancelled`` as soon as the run is cancelled. The run
        /// is there to cancel when whoever waits gives up.
        case pending(CompletionCell<Result<Value, Error>>, Run?)
    }

    /// How whoever starts a run waits for it, which decides where its work starts (see
    /// ``RunPlacement/of(_:wait:)``).
    @usableFromInline
    enum Start: Equatable, Sendable {
        /// The caller waits until the work ends.
        case waited
        /// The caller waits at most until a deadline.
        case waitedWithDeadline
        /// The caller does not wait (`async`, `start()`, `value`); the work starts after a
        /// delay in seconds, zero for at once.
        case unwaited(after: TimeInterval)

        @inlinable
        var delay: TimeInterval {
            if case .unwaited(let delay) = self { return delay }
            return 0
        }

        @inlinable
        var wait: RunPlacement.Wait {
            switch self {
            case .waited: return .untilDone
            case .waitedWithDeadline: return .withDeadline
            case .unwaited: return .no
            }
        }
    }

    /// Starts a run of `task` as a child of `parent`.
    ///
    /// - Parameters:
    ///   - sharesCancellation: other copies of the task may cancel it for good; `false` only
    ///     for the last copy of a ``ThrowableTask``.
    ///   - mayGiveUp: the caller may cancel the run before its work ends (a Swift task), so
    ///     the run's waiters must be released at once.
    ///   - releasesOnTaskCancellation: cancelling the task for good releases a waiter that
    ///     does not run the work at once too. Collection lanes and composed steps, which wait
    ///     for their tasks in order anyway, leave it off.
    ///   - start: how the caller waits (see ``Start``).
    @inlinable
    static func launch<Work: ThrowableTaskType>(
        _ task: Work,
        parent: Run?,
        sharesCancellation: Bool = true,
        mayGiveUp: Bool = false,
        releasesOnTaskCancellation: Bool = false,
        start: Start = .waited
    ) -> Launched<Work.ResultType> {
        let body = (task as? ThrowableTask<Work.ResultType>)?.body
        let origin = RunOrigin.of(task)
        // Looking among the ancestors, which may be a million deep in a recursive loop, only
        // for an origin that may be running: a composed body that has had a run, a future that
        // has not completed.
        if let parent, let origin, origin.mayBeRunning, parent.isRunning(origin.id) {
            return .finished(.failure(TaskigError.awaitedFromItsOwnWork))
        }
        // A run whose task or parent is cancelled never starts.
        if isCancelledForGood(task, body: body) || parent?.isCancelled == true {
            return .finished(.failure(CancellableTaskError.taskWasCancelled))
        }
        let token: (any CancellationSource)? = sharesCancellation ? body : nil
        let releasesEarly =
            mayGiveUp || start == .waitedWithDeadline || (releasesOnTaskCancellation && token != nil)
        let isCancellable = releasesEarly || (parent?.isCancellable ?? false)
        let placement = Self.placement(of: task, body: body, start: start)
        if placement == .inPlace, let body, body.isPlainCall {
            // A plain call, whose run gets a `Run` object only if its work asks for one. Its
            // waiter runs it, so cancellation reaches that waiter through the work (rule 5).
            var frame = RunFrame(parent: parent, task: token)
            let outcome = CurrentRun.whileRunning(&frame) { _ in body.callInPlace() }
            return .finished(frame.finishInPlace(outcome))
        }
        let run: Run? =
            isCancellable || token != nil
            ? Run(parent: parent, task: token, cancellable: releasesEarly, origin: origin?.id) : nil
        let context = run ?? parent
        let cell = CompletionCell<Result<Work.ResultType, Error>>()
        if let run, isCancellable {
            run.onCancel { cell.complete(with: .failure(CancellableTaskError.taskWasCancelled)) }
        }
        // A task's contract lets Taskig start it on any thread, which is all the job does.
        nonisolated(unsafe) let task = task
        placement.send(after: start.delay) {
            // A run given up before it started never starts.
            guard cell.completedValue == nil else {
                run?.close()
                return
            }
            CurrentRun.whileRunning(context) {
                task.action { outcome in Run.end(run, with: outcome) { cell.complete(with: $0) } }
            }
        }
        return .pending(cell, run)
    }

    /// Whether `task`, whose body is `body` when it is a ``ThrowableTask``, is cancelled for
    /// good: then none of its runs starts.
    @inlinable
    static func isCancelledForGood<Work: ThrowableTaskType>(_ task: Work, body: TaskBody<Work.ResultType>?) -> Bool {
        body?.isCancelled ?? (task as? CancellableTaskType)?.isCancelled ?? false
    }

    /// Where the work of a run of `task` starts.
    @inlinable
    static func placement<Work: ThrowableTaskType>(
        of task: Work,
        body: TaskBody<Work.ResultType>?,
        start: Start
    ) -> RunPlacement {
        // Listening to a future only registers a callback: it never blocks.
        if body?.startsByListening ?? (task is ListeningTask) { return .inPlace }
        let queue = body?.workQueue ?? WorkQueue(task.executionQueue)
        return RunPlacement.of(queue, wait: start.wait)
    }

    /// How a run of a task that cannot fail stands once started.
    @usableFromInline
    enum PlainLaunched<Value> {
        case finished(Value)
        case pending(CompletionCell<Value>)
    }

    /// Starts a run of a task that cannot fail, whose work sees `context` as its own run:
    /// such a task cannot be cancelled, so its waiter always waits for the work. `context` is
    /// asked for only when the work does not run in place, where the current run already is
    /// its run.
    @inlinable
    static func launch<Work: TaskType>(
        _ task: Work, context: @autoclosure () -> Run?, start: Start = .waited
    ) -> PlainLaunched<Work.ResultType> {
        let placement: RunPlacement
        if let plain = task as? Task<Work.ResultType> {
            placement = RunPlacement.of(WorkQueue(plain.chosenQueue, kind: plain.executionQueueKind), wait: start.wait)
            if placement == .inPlace, case .returning(let produce) = plain.work { return .finished(produce()) }
        } else {
            placement = RunPlacement.of(WorkQueue(task.executionQueue), wait: start.wait)
        }
        let cell = CompletionCell<Work.ResultType>()
        let context = context()
        nonisolated(unsafe) let task = task
        placement.send(after: start.delay) {
            CurrentRun.whileRunning(context) {
                task.action { value in cell.complete(with: value) }
            }
        }
        return .pending(cell)
    }
}

/// What a run is a run of, for the runs that could end up waiting for themselves: a
/// composed task's chain, or a future's work.
@usableFromInline
struct RunOrigin {
    @usableFromInline
    let id: ObjectIdentifier
    /// Whether a run of the origin may be in progress: a composed body that has had a run
    /// before this one, a future that has not completed. Only then can a wait for it be a wait
    /// for its own work.
    @usableFromInline
    let mayBeRunning: Bool

    @inlinable
    init(id: ObjectIdentifier, mayBeRunning: Bool) {
        self.id = id
        self.mayBeRunning = mayBeRunning
    }

    /// The origin of a run of `task` about to start; marks a composed body as having had a run.
    @inlinable
    static func of<Work: ThrowableTaskType>(_ task: Work) -> RunOrigin? {
        if let body = (task as? ThrowableTask<Work.ResultType>)?.body {
            guard case .composed = body.work else { return nil }
            return RunOrigin(id: ObjectIdentifier(body), mayBeRunning: CancellationWord.markStarted(body.word))
        }
        guard let state = (task as? Future<Work.ResultType>)?.state, let run = state.run else { return nil }
        return RunOrigin(id: ObjectIdentifier(run), mayBeRunning: !state.cell.isCompleted)
    }
}

/// A task whose `action(completion:)` only registers a callback and never blocks, so that it
/// may always start on the waiting thread (a ``Future``).
@usableFromInline
protocol ListeningTask {}
