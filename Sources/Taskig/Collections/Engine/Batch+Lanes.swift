import Dispatch
import Synchronization

/// How a ``Batch``'s lanes run its tasks, and how a lane ends.
extension Batch {
    /// Runs `lane` until no task is left for it or the batch is over; a lane let go before its
    /// thread took it up (see ``endLane(_:)``) does nothing. A task left pending on a lane
    /// (see ``leavePending(on:)``) moves the thread on to the lane after it.
    @inlinable
    func runLane(_ lane: BatchLane) {
        let threadTimes = ThreadTimes.ofCurrentThread()
        let isOnRoster = roster.withLock { $0.threadTakesUp(lane, threadTimes: threadTimes) }
        guard isOnRoster else { return }
        // One frame for the lanes' whole life; between tasks only its task changes.
        var frame = laneFrame
        let caller = RunPlacement.Caller.current
        // Ended only once the tasks' buffer is let go of: ending the last lane releases the
        // caller, which then frees the tasks.
        let last = CurrentRun.whileRunning(&frame) { frame in
            tasks.withUnsafeBufferPointer { tasks -> TaskStep in
                var lane = lane
                var step = TaskStep.settled
                while true {
                    runNextTask(
                        of: tasks, on: lane, caller: caller, frame: frame, mayLeavePending: true, step: &step)
                    switch step {
                    case .settled: continue
                    case .movedOn(let successor):
                        lane = successor
                        step = .settled
                    case .leftLast, .noneLeft: return step
                    }
                }
            }
        }
        if roster.withLock({ $0.threadLeaves() }) { startLanes(1) }
        switch last {
        case .noneLeft(let lane):
            endLane(lane)
        case .leftLast(let pending):
            settleWhenComplete(pending)
        case .settled, .movedOn:
            preconditionFailure("BUG IN TASKIG: a lane stopped with tasks left")
        }
    }

    /// Runs the next task on `lane`, the caller's, in place (the caller runs the tasks of a
    /// `completions` loop one at a time when it must run them itself); returns whether there
    /// was one. The lane ends once there is none.
    @inlinable
    func runNextTaskInPlace(on lane: BatchLane) -> Bool {
        var frame = laneFrame
        let step = CurrentRun.whileRunning(&frame) { frame in
            tasks.withUnsafeBufferPointer { tasks in
                var step = TaskStep.settled
                runNextTask(
                    of: tasks, on: lane, caller: .current, frame: frame, mayLeavePending: false, step: &step)
                return step
            }
        }
        switch step {
        case .noneLeft:
            endLane(lane)
            return false
        case .settled, .movedOn, .leftLast:
            return true
        }
    }

    /// The frame a lane's tasks run in: children of the batch's run, which, when the batch
    /// waits for every task, cannot end before the work of the lane does, and otherwise may
    /// end without it.
    @inlinable
    var laneFrame: RunFrame {
        var frame = RunFrame(parent: run, task: nil)
        frame.holding = sink.mayEndEarly ? .laneOfAnyTask : .laneOfEveryTask
        return frame
    }

    /// What running one task on a lane came to.
    @usableFromInline
    enum TaskStep {
        /// The task settled; the lane goes on.
        case settled
        /// The task's outcome is still to come, and its lane waits for it without a thread,
        /// while the thread goes on with this lane.
        case movedOn(BatchLane)
        /// The same with no task left to start: the thread is free once it has let go of the
        /// tasks, and then hears of the outcome (see ``settleWhenComplete(_:)``).
        case leftLast(PendingTask)
        /// No task was left to start, or the batch is over: this lane ends.
        case noneLeft(BatchLane)
    }

    /// A task whose outcome is still to come, on the lane it keeps.
    @usableFromInline
    struct PendingTask {
        @usableFromInline
        let cell: CompletionCell<Work.Outcome>
        @usableFromInline
        let index: Int
        @usableFromInline
        let lane: BatchLane

        @inlinable
        init(cell: CompletionCell<Work.Outcome>, index: Int, lane: BatchLane) {
            self.cell = cell
            self.index = index
            self.lane = lane
        }
    }

    /// Claims the next task, runs it on `lane` and records its outcome; or leaves it pending,
    /// when `mayLeavePending`, as ``leavePending(on:)`` allows. Sets `step`, which is
    /// `.settled` on entry, when the lane does not go on as it was: the lane's loop keeps one
    /// step for all its tasks, so that a task that settles neither writes nor destroys one.
    @inlinable
    @inline(__always)
    func runNextTask(
        of tasks: UnsafeBufferPointer<Work.Element>, on lane: BatchLane, caller: RunPlacement.Caller,
        frame: UnsafeMutablePointer<RunFrame>, mayLeavePending: Bool, step: inout TaskStep
    ) {
        guard let index = claims.nextTask(for: lane) else {
            step = .noneLeft(lane)
            return
        }
        lane.enterTask()
        if Work.tasksCanBeCancelledForGood { lane.beginRunning(index) }
        // The lane's caller holds the batch: capturing it strongly would make both lanes write
        // its reference count for every task.
        let outcome = Work.perform(
            tasks.baseAddress! + index, on: lane, caller: caller, parent: run, frame: frame, waits: laneWaits,
            leavePending: { [unowned(unsafe) self] cell in
                guard mayLeavePending, let successor = self.leavePending(on: lane) else { return false }
                lane.isPending.store(true, ordering: .relaxed)
                let pending = PendingTask(cell: cell, index: index, lane: lane)
                if let successor {
                    self.settleWhenComplete(pending)
                    step = .movedOn(successor)
                } else {
                    step = .leftLast(pending)
                }
                return true
            },
            beforeBlocking: { [unowned(unsafe) self] in self.startLanes(1) })
        guard let outcome else { return }
        if Work.tasksCanBeCancelledForGood, !lane.endRunning() {
            laneLeftDroppedTask(lane)
            return
        }
        lane.leaveTask()
        if sink.record(outcome, at: index) {
            end(cancelled: false)
            step = .noneLeft(lane)
            return
        }
        progress?.taskSettled()
    }

    /// Whether the thread of `lane`, whose task's outcome is still to come, may leave it
    /// pending (rule 4 of "Waiting safely"): the lane keeps counting toward `concurrency` without a
    /// thread until the outcome comes. Returns the lane the thread goes on with; `.some(nil)`
    /// when it has none (no task is left to start, or `concurrency` lanes are in use) and
    /// goes: a slot that comes free later starts a lane of its own. Only where the lanes a
    /// batch starts are sure to run is the thread free to go with tasks left; otherwise
    /// (`nil`) it waits for this outcome.
    @inlinable
    func leavePending(on lane: BatchLane) -> BatchLane?? {
        let successor = admitLane(runByCaller: true)
        if successor == nil && claims.hasTasksToStart && !lanesAlwaysStart { return nil }
        if let successor { claims.takeOver(claimedBy: lane, for: successor) }
        return .some(successor)
    }

    /// Records the pending task's outcome once it comes.
    @inlinable
    func settleWhenComplete(_ pending: PendingTask) {
        pending.cell.whenComplete { outcome in self.settlePending(outcome, at: pending.index, on: pending.lane) }
    }

    /// Records the outcome of a task left pending on `lane`, which then ends; the lane it
    /// freed may start again where tasks are left.
    @inlinable
    func settlePending(_ outcome: Work.Outcome, at index: Int, on lane: BatchLane) {
        if Work.tasksCanBeCancelledForGood, !lane.endRunning() {
            laneLeftDroppedTask(lane)
        } else {
            lane.leaveTask()
            if sink.record(outcome, at: index) {
                end(cancelled: false)
            } else {
                progress?.taskSettled()
            }
        }
        // A lane whose thread left with no lane to go on with may still hold tasks it claimed
        // and nobody has started: it runs them now, or no lane would, and the batch would never
        // end. Only a lane whose batch's lanes always start leaves with such tasks.
        if lane.firstClaimedTask != nil {
            lane.isPending.store(false, ordering: .relaxed)
            if !send(lane) { runLane(lane) }
            return
        }
        endLane(lane)
    }

    /// Ends `lane`'s task, whose outcome the batch settled as cancelled while the lane ran it
    /// (see ``someTaskWasCancelledForGood()``): the lane drops the outcome it got, and counts
    /// the task among its own from now on. Kept out of the lanes' loop, which every task runs.
    @inlinable
    @inline(never)
    func laneLeftDroppedTask(_ lane: BatchLane) {
        roster.withLock { $0.laneLeftDroppedTask(lane) }
        lane.leaveTask()
    }

    /// Takes `lane` off the roster and adds what it settled to the batch's count (see
    /// ``BatchState/end(_:settled:)``): the last lane to end once every task has settled
    /// releases the caller, and from then on no lane reads the tasks (see
    /// ``takeTasksOnceSettled()``); a lane whose slot no running thread will take starts
    /// another.
    @inlinable
    func endLane(_ lane: BatchLane) {
        let settled = lane.settledCount
        switch roster.withLock({ $0.end(lane, settled: settled) }) {
        case .none: break
        case .startLane: startLanes(1)
        case .releaseCaller: finished.complete(with: ())
        }
    }
}
