import Dispatch

/// How a lane runs one task of a collection: to completion, as a child of the collection's
/// run, on the lane's own thread when the task's queue allows it.
@usableFromInline
protocol LaneWork: SendableMetatype {
    associatedtype Element
    associatedtype Outcome

    /// Runs the task at `task` as a child of `parent` and returns its outcome; or, when the
    /// task's outcome is still to come once its code has returned (a callback, work on another
    /// queue), offers its cell to `leavePending`, and returns `nil` when the lane took it (the
    /// lane then goes on without waiting, rule 4 of "Waiting safely"). Otherwise it waits, and
    /// calls `beforeBlocking` first (the collection may start another lane meanwhile). The task
    /// is passed by address, so that a task whose work is a plain call is read where it is,
    /// without a copy.
    ///
    /// `caller` is the lane's thread, as ``RunPlacement`` sees it, asked once per lane.
    ///
    /// `frame` is the lane's current run frame (see ``CurrentRun``), whose parent is `parent`:
    /// a task whose work is a plain call runs in it, after setting its task, so that running
    /// it allocates nothing and sets no thread-local state. A wait that parks shows as `waits`
    /// says (see ``LaneWaits``).
    static func perform(
        _ task: UnsafePointer<Element>, on lane: BatchLane, caller: RunPlacement.Caller, parent: Run?,
        frame: UnsafeMutablePointer<RunFrame>, waits: LaneWaits,
        leavePending: (CompletionCell<Outcome>) -> Bool, beforeBlocking: () -> Void
    ) -> Outcome?

    /// The queue `task`'s work runs on; for a future, the queue its work was sent to, if any.
    static func workQueue(of task: Element) -> WorkQueue?

    /// Whether a task can be cancelled for good while a lane runs it: then the batch settles
    /// it as cancelled at once (see ``Batch/someTaskWasCancelledForGood()``).
    static var tasksCanBeCancelledForGood: Bool { get }

    /// Whether `task` is cancelled for good; only asked when ``tasksCanBeCancelledForGood``.
    static func isCancelledForGood(_ task: Element) -> Bool

    /// The outcome of a task cancelled for good; only asked when ``tasksCanBeCancelledForGood``.
    static var cancelledOutcome: Outcome { get }
}

/// Lane work for tasks that can fail; the outcome is the task's `Result`.
@usableFromInline
enum ThrowingLaneWork<Element: ThrowableTaskType>: LaneWork {
    @inlinable
    @inline(__always)
    static func perform(
        _ address: UnsafePointer<Element>, on lane: BatchLane, caller: RunPlacement.Caller, parent: Run?,
        frame: UnsafeMutablePointer<RunFrame>, waits: LaneWaits,
        leavePending: (CompletionCell<Result<Element.ResultType, Error>>) -> Bool, beforeBlocking: () -> Void
    ) -> Result<Element.ResultType, Error>? {
        // Where the lane may run the work (see ``RunPlacement``), it runs a value-returning
        // closure itself. The body is read in place: the tasks array holds it for as long as
        // the lane runs.
        if let body = TaskKind<Element.ResultType>.throwableBody(at: address) {
            // Used as guaranteed, the body counts no reference while its closure runs:
            // otherwise both lanes would write each body's count, twice per task.
            let outcome = body._withUnsafeGuaranteedRef { body -> Result<Element.ResultType, Error>? in
                guard body.isPlainCall,
                    RunPlacement.of(body.queueKind, queue: body.executionQueue, wait: .untilDone, caller: caller)
                        == .inPlace
                else { return nil }
                guard !body.isCancelled, !(parent?.isCancelled ?? false) else {
                    return .failure(CancellableTaskError.taskWasCancelled)
                }
                frame.pointee.task = body
                let outcome = body.callInPlace()
                return frame.pointee.finishInPlace(outcome, isTaskCancelled: body.isCancelled)
            }
            if let outcome { return outcome }
        }
        return launch(
            address.pointee, on: lane, parent: parent, waits: waits, leavePending: leavePending,
            beforeBlocking: beforeBlocking)
    }

    /// Runs a task that is not a plain call on the lane's thread: a launch, and a wait
    /// for its outcome. Kept out of ``perform(_:parent:frame:leavePending:beforeBlocking:)``, which every
    /// task of a lane inlines.
    @inlinable
    @inline(never)
    static func launch(
        _ task: Element, on lane: BatchLane, parent: Run?, waits: LaneWaits,
        leavePending: (CompletionCell<Result<Element.ResultType, Error>>) -> Bool, beforeBlocking: () -> Void
    ) -> Result<Element.ResultType, Error>? {
        // Until the task's action begins, the lane makes its run: Taskig's work, not the task's.
        lane.userCodeReturned()
        switch RunLaunch.launch(task, parent: parent, watch: lane) {
        case .finished(let outcome):
            return outcome
        case .pending(let cell, let run):
            let subject = {
                WaitSubject(
                    site: waits.site, target: RunLaunch.runningFutureRun(of: TaskKind.of(task)) ?? run,
                    othersMayEndIt: waits.othersMayEndThem,
                    work: .task(type: Element.self, queue: workQueue(of: task), startedAt: nil))
            }
            RunWait.claimWorkOfFuture(task, start: .waited, for: subject)
            if !cell.isCompleted {
                if leavePending(cell) { return nil }
                beforeBlocking()
            }
            switch BlockingWait.outcome(of: cell, for: subject) {
            case .value(let outcome):
                return outcome
            case .deadlinePassed:
                preconditionFailure("BUG IN TASKIG: a lane's wait with no deadline passed its deadline")
            case .deadlock(let deadlock):
                if cell.complete(with: .failure(deadlock)) { run?.cancel() }
                return cell.completedValue!
            }
        }
    }

    @inlinable
    static var tasksCanBeCancelledForGood: Bool { true }

    @inlinable
    static func isCancelledForGood(_ task: Element) -> Bool {
        TaskKind<Element.ResultType>.of(task).isCancelledForGood(task)
    }

    @inlinable
    static var cancelledOutcome: Result<Element.ResultType, Error> {
        .failure(CancellableTaskError.taskWasCancelled)
    }

    @inlinable
    static func workQueue(of task: Element) -> WorkQueue? {
        TaskKind.of(task).workQueue(else: task.executionQueue)
    }
}

/// Lane work for tasks that cannot fail; the outcome is the task's value.
@usableFromInline
enum PlainLaneWork<Element: TaskType>: LaneWork {
    @inlinable
    static func perform(
        _ address: UnsafePointer<Element>, on lane: BatchLane, caller: RunPlacement.Caller, parent: Run?,
        frame: UnsafeMutablePointer<RunFrame>, waits: LaneWaits,
        leavePending: (CompletionCell<Element.ResultType>) -> Bool, beforeBlocking: () -> Void
    ) -> Element.ResultType? {
        // Read in place: a copy of the task would count references to its queue and its
        // closure on every task of the lane.
        if let plain = TaskKind<Element.ResultType>.plainTask(at: address) {
            if case .returning(let produce) = plain.pointee.work,
                RunPlacement.of(
                    plain.pointee.executionQueueKind, queue: plain.pointee.executionQueue, wait: .untilDone,
                    caller: caller) == .inPlace
            {
                defer { frame.pointee.closeIfMade() }
                return produce()
            }
        }
        let task = address.pointee
        lane.userCodeReturned()
        switch RunLaunch.launch(task, context: parent, watch: lane) {
        case .finished(let value):
            return value
        case .pending(let cell, let run):
            if !cell.isCompleted {
                if leavePending(cell) { return nil }
                beforeBlocking()
            }
            return BlockingWait.outcome(of: cell) {
                WaitSubject(
                    site: waits.site, target: run, othersMayEndIt: waits.othersMayEndThem,
                    work: .task(type: Element.self, queue: workQueue(of: task), startedAt: nil))
            }.valueOrStop("A collection wait of \(Element.self)s")
        }
    }

    /// A task that cannot fail cannot be cancelled either.
    @inlinable
    static var tasksCanBeCancelledForGood: Bool { false }

    @inlinable
    static func isCancelledForGood(_ task: Element) -> Bool { false }

    @inlinable
    static var cancelledOutcome: Element.ResultType {
        preconditionFailure("BUG IN TASKIG: a task that cannot fail was settled as cancelled")
    }

    @inlinable
    static func workQueue(of task: Element) -> WorkQueue? {
        TaskKind.of(task).workQueue(else: task.executionQueue)
    }
}
