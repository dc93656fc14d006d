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
    /// lane then goes on without waiting, DESIGN §3 rule 4). Otherwise it waits, and calls
    /// `beforeBlocking` first (the collection may start another lane meanwhile). The task is passed by address, so that a task whose work is a
    /// plain call is read where it is, without a copy.
    ///
    /// `frame` is the lane's current run frame (see ``CurrentRun``), whose parent is `parent`:
    /// a task whose work is a plain call runs in it, after setting its task, so that running
    /// it allocates nothing and sets no thread-local state.
    static func perform(
        _ task: UnsafePointer<Element>, parent: Run?, frame: UnsafeMutablePointer<RunFrame>,
        leavePending: (CompletionCell<Outcome>) -> Bool, beforeBlocking: () -> Void
    ) -> Outcome?

    /// The queue `task`'s work runs on; for a future, the queue its work was sent to, if any.
    static func workQueue(of task: Element) -> WorkQueue?
}

/// Lane work for tasks that can fail; the outcome is the task's `Result`.
@usableFromInline
enum ThrowingLaneWork<Element: ThrowableTaskType>: LaneWork {
    @inlinable
    @inline(__always)
    static func perform(
        _ address: UnsafePointer<Element>, parent: Run?, frame: UnsafeMutablePointer<RunFrame>,
        leavePending: (CompletionCell<Result<Element.ResultType, Error>>) -> Bool, beforeBlocking: () -> Void
    ) -> Result<Element.ResultType, Error>? {
        // Lanes never run on the main thread, and a global queue has no thread affinity: the
        // lane runs a value-returning closure itself. The body is read in place: the tasks
        // array holds it for as long as the lane runs.
        if Element.self == ThrowableTask<Element.ResultType>.self {
            // A `ThrowableTask` is its body's reference alone, so its bits are an `Unmanaged`
            // one. Used as guaranteed, the body counts no reference while its closure runs:
            // otherwise both lanes would write each body's count, twice per task.
            assert(MemoryLayout<ThrowableTask<Element.ResultType>>.size == MemoryLayout<Unmanaged<AnyObject>>.size)
            let body = UnsafeRawPointer(address).load(as: Unmanaged<TaskBody<Element.ResultType>>.self)
            let outcome = body._withUnsafeGuaranteedRef { body -> Result<Element.ResultType, Error>? in
                guard body.queueKind == .globalConcurrent, body.isPlainCall else { return nil }
                guard !body.isCancelled, !(parent?.isCancelled ?? false) else {
                    return .failure(CancellableTaskError.taskWasCancelled)
                }
                frame.pointee.task = body
                let outcome = body.callInPlace()
                return frame.pointee.finishInPlace(outcome, isTaskCancelled: body.isCancelled)
            }
            if let outcome { return outcome }
        }
        return launch(address.pointee, parent: parent, leavePending: leavePending, beforeBlocking: beforeBlocking)
    }

    /// Runs a task that is not a plain call on the lane's thread: a launch, and a wait
    /// for its outcome. Kept out of ``perform(_:parent:frame:leavePending:beforeBlocking:)``, which every
    /// task of a lane inlines.
    @inlinable
    @inline(never)
    static func launch(
        _ task: Element, parent: Run?, leavePending: (CompletionCell<Result<Element.ResultType, Error>>) -> Bool,
        beforeBlocking: () -> Void
    ) -> Result<Element.ResultType, Error>? {
        switch RunLaunch.launch(task, parent: parent) {
        case .finished(let outcome):
            return outcome
        case .pending(let cell, _):
            RunWait.claimWorkOfFuture(task, start: .waited)
            if !cell.isCompleted {
                if leavePending(cell) { return nil }
                beforeBlocking()
            }
            return BlockingWait.value(of: cell)!
        }
    }

    @inlinable
    static func workQueue(of task: Element) -> WorkQueue? {
        if let body = (task as? ThrowableTask<Element.ResultType>)?.body { return body.workQueue }
        if task is ListeningTask { return (task as? Future<Element.ResultType>)?.state.workQueue }
        return WorkQueue(task.executionQueue)
    }
}

/// Lane work for tasks that cannot fail; the outcome is the task's value.
@usableFromInline
enum PlainLaneWork<Element: TaskType>: LaneWork {
    @inlinable
    static func perform(
        _ address: UnsafePointer<Element>, parent: Run?, frame: UnsafeMutablePointer<RunFrame>,
        leavePending: (CompletionCell<Element.ResultType>) -> Bool, beforeBlocking: () -> Void
    ) -> Element.ResultType? {
        if Element.self == Task<Element.ResultType>.self {
            // Read in place: a copy of the task would count references to its queue and its
            // closure on every task of the lane.
            let plain = UnsafeRawPointer(address).assumingMemoryBound(to: Task<Element.ResultType>.self)
            if plain.pointee.executionQueueKind == .globalConcurrent, case .returning(let produce) = plain.pointee.work
            {
                defer { frame.pointee.closeIfMade() }
                return produce()
            }
        }
        let task = address.pointee
        switch RunLaunch.launch(task, context: parent) {
        case .finished(let value):
            return value
        case .pending(let cell):
            if !cell.isCompleted {
                if leavePending(cell) { return nil }
                beforeBlocking()
            }
            return BlockingWait.value(of: cell)!
        }
    }

    @inlinable
    static func workQueue(of task: Element) -> WorkQueue? {
        if let plain = task as? Task<Element.ResultType> {
            return WorkQueue(plain.chosenQueue, kind: plain.executionQueueKind)
        }
        return WorkQueue(task.executionQueue)
    }
}
