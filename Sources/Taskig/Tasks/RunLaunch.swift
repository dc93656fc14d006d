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
        /// The caller waits at most until this deadline.
        case waitedUntil(DispatchTime)
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
            case .waitedUntil: return .withDeadline
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
        start: Start = .waited,
        watch: (any UserCodeWatch)? = nil
    ) -> Launched<Work.ResultType> {
        let kind = TaskKind.of(task)
        let body = kind.body
        // Looking among the ancestors, which may be a million deep in a recursive loop, only
        // for a future that has not completed: every other wait makes a run of its own.
        if let parent, let futureRun = runningFutureRun(of: kind), parent.isRunning(futureRun) {
            return .finished(.failure(TaskigError.awaitedFromItsOwnWork))
        }
        // A run whose task or parent is cancelled never starts.
        if kind.isCancelledForGood(task) || parent?.isCancelled == true {
            return .finished(.failure(CancellableTaskError.taskWasCancelled))
        }
        let token: (any CancellationSource)? = sharesCancellation ? body : nil
        let hasDeadline = start.wait == .withDeadline
        let releasesEarly = mayGiveUp || hasDeadline || (releasesOnTaskCancellation && token != nil)
        let isCancellable = releasesEarly || (parent?.isCancellable ?? false)
        let placement = Self.placement(of: task, kind: kind, start: start)
        // A run with a deadline needs its `Run` even in place, for the deadline to cancel it.
        if placement == .inPlace, !hasDeadline, let body, body.isPlainCall {
            // A plain call, whose run gets a `Run` object only if its work asks for one. Its
            // waiter runs it, so cancellation reaches that waiter through the work (rule 5).
            var frame = RunFrame(parent: parent, task: token)
            let outcome = CurrentRun.whileRunning(&frame) { _ in body.callInPlace() }
            return .finished(frame.finishInPlace(outcome))
        }
        let run: Run? =
            isCancellable || token != nil
            ? Run(parent: parent, task: token, cancellable: releasesEarly) : nil
        let context = run ?? parent
        let watchesHandler = kind.needsHandlerWatched
        let cell = CompletionCell<Result<Work.ResultType, Error>>()
        if let run, isCancellable {
            run.onCancel { cell.complete(with: .failure(CancellableTaskError.taskWasCancelled)) }
        }
        // A task's contract lets Taskig start it on any thread, which is all the job does.
        nonisolated(unsafe) let task = task
        // A waiter that runs the work itself (a held serial queue, or a worker when no other is
        // free) cannot give up at its deadline: the deadline cancels the run instead, which
        // reaches the work cooperatively, and the waiter returns the timeout once the work
        // returns (rule 5 of "Waiting safely").
        let deadlineOfWorkRunHere: (@Sendable () -> Void)?
        if case .waitedUntil(let deadline) = start, !placement.alwaysSendsElsewhere {
            deadlineOfWorkRunHere = {
                Scheduling.at(deadline) {
                    if cell.complete(with: .failure(TaskigError.timedOut)) { run?.cancel() }
                }
            }
        } else {
            deadlineOfWorkRunHere = nil
        }
        placement.send(after: start.delay, beforeRunningHere: deadlineOfWorkRunHere) {
            // A run given up before it started never starts.
            guard cell.completedValue == nil else {
                run?.close()
                return
            }
            let work = {
                CurrentRun.whileRunning(context) {
                    let completion: @Sendable (Result<Work.ResultType, Error>) -> Void = { outcome in
                        Run.end(run, with: outcome) { cell.complete(with: $0) }
                    }
                    // Made before the action begins: its allocations are Taskig's work, not the task's.
                    let handler = watchesHandler ? WatchedHandler.watching(completion, of: task) : completion
                    guard let watch else { return task.action(completion: handler) }
                    runAction(of: task, reportingTo: handler, watch: watch)
                }
            }
            // Work its waiter does not run is noted where it runs, for the wait report.
            guard let run, placement != .inPlace else {
                run?.noteStarted()
                return work()
            }
            run.runWorkHandedHere(work)
        }
        return .pending(cell, run)
    }

    /// Runs `task`'s `action(completion:)`, reporting to `handler`, and tells `watch` when the
    /// task's own code begins and returns. The callback work of Taskig's own kinds of task gets
    /// its handler watched (see ``WatchedHandler``): that handler is made before the code
    /// begins, as for a type of the user's own, since making it (an allocation, a lookup of
    /// the handler's generic type) is Taskig's work, not the task's. A lane whose thread sleeps
    /// there is not blocked in its task.
    @inlinable
    static func runAction<Work: ThrowableTaskType>(
        of task: Work, reportingTo handler: @escaping @Sendable (Result<Work.ResultType, Error>) -> Void,
        watch: any UserCodeWatch
    ) {
        if case .throwable(let body) = TaskKind.of(task), case .reporting(let start) = body.work, !body.isCancelled {
            let watched = WatchedHandler.watching(handler, of: ThrowableTask(body: body))
            return watch.whileTheTasksCodeRuns { start(watched) }
        }
        watch.whileTheTasksCodeRuns { task.action(completion: handler) }
    }

    /// Runs `task`'s `action(completion:)`, reporting to `handler`, and tells `watch` when the
    /// task's own code begins and returns; the handler a ``Task``'s callback work gets watched
    /// (see ``WatchedPlainHandler``) is made before that code begins, as Taskig's work.
    @inlinable
    static func runAction<Work: TaskType>(
        of task: Work, reportingTo handler: @escaping @Sendable (Work.ResultType) -> Void,
        watch: any UserCodeWatch
    ) {
        if let plain = TaskKind.plain(task), case .reporting(let start) = plain.work {
            let watched = WatchedPlainHandler.watching(handler, queue: plain.chosenQueue)
            return watch.whileTheTasksCodeRuns { start(watched) }
        }
        watch.whileTheTasksCodeRuns { task.action(completion: handler) }
    }

    /// The run of a task of `kind` when it is a future that has not completed: a wait for it
    /// from that run's own work could never end.
    @inlinable
    static func runningFutureRun<Value>(of kind: TaskKind<Value>) -> Run? {
        guard let state = kind.listenedRun, !state.cell.isCompleted else { return nil }
        return state.run
    }

    /// Where the work of a run of `task`, of `kind`, starts.
    @inlinable
    static func placement<Work: ThrowableTaskType>(
        of task: Work,
        kind: TaskKind<Work.ResultType>,
        start: Start
    ) -> RunPlacement {
        // Listening to a future only registers a callback: it has no work to place.
        RunPlacement.of(kind.startsByListening ? nil : kind.workQueue(else: task.executionQueue), wait: start.wait)
    }

    /// How a run of a task that cannot fail stands once started.
    @usableFromInline
    enum PlainLaunched<Value> {
        case finished(Value)
        /// The work's value will complete this cell; the run is there for a waiter that runs
        /// no work itself, for the wait report (see ``launch(_:context:start:)``).
        case pending(CompletionCell<Value>, Run?)
    }

    /// Starts a run of a task that cannot fail, whose work sees `context` as its own run:
    /// such a task cannot be cancelled, so its waiter always waits for the work. `context` is
    /// asked for only when the work does not run in place, where the current run already is
    /// its run.
    @inlinable
    static func launch<Work: TaskType>(
        _ task: Work, context: @autoclosure () -> Run?, start: Start = .waited, watch: (any UserCodeWatch)? = nil
    ) -> PlainLaunched<Work.ResultType> {
        let kind = TaskKind.of(task)
        let placement = RunPlacement.of(
            kind.workQueue(else: task.executionQueue) ?? WorkQueue(task.executionQueue), wait: start.wait)
        if placement == .inPlace, case .plain(let plain) = kind, case .returning(let produce) = plain.work {
            return .finished(produce())
        }
        let cell = CompletionCell<Work.ResultType>()
        let context = context()
        // Work that a waiter does not run itself gets a run of its own, a child of `context`,
        // which nothing can cancel: the waiter's report and cycle check follow it to where the
        // work runs.
        let run = start == .waited && placement != .inPlace ? Run(parent: context, cancellable: false) : nil
        nonisolated(unsafe) let task = task
        placement.send(after: start.delay) {
            guard let run else {
                return CurrentRun.whileRunning(context) {
                    let completion: @Sendable (Work.ResultType) -> Void = { value in cell.complete(with: value) }
                    guard let watch else { return task.action(completion: completion) }
                    runAction(of: task, reportingTo: completion, watch: watch)
                }
            }
            run.runWorkHandedHere {
                CurrentRun.whileRunning(run) {
                    task.action { value in Run.end(run, with: .success(value)) { _ in cell.complete(with: value) } }
                }
            }
        }
        return .pending(cell, run)
    }
}

/// Hears when the code of a task's `action(completion:)` begins and returns, on the thread
/// that runs it: a collection's lane, whose looks count it as blocked in its task only while
/// that code runs, not while Taskig makes the run around it (see ``BatchLane``).
@usableFromInline
protocol UserCodeWatch: AnyObject, Sendable {
    func userCodeBegins()
    func userCodeReturned()
}

extension UserCodeWatch {
    /// Runs `code`, the task's own, with the watch told when it begins and returns.
    @inlinable
    func whileTheTasksCodeRuns(_ code: () -> Void) {
        userCodeBegins()
        code()
        userCodeReturned()
    }
}
