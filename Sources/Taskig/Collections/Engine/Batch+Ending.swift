import Synchronization

/// How a ``Batch`` ends before every task settled, and settles a task cancelled for good.
extension Batch {
    /// Ends the batch, whose caller would have closed a cycle of waits (see ``WaitCycle``):
    /// the tasks that had not settled fail with `deadlock`, and the runs still going are
    /// cancelled. Only a batch that waits for every task can be in a cycle.
    @usableFromInline
    func end(deadlock: TaskigError) {
        guard roster.withLock({ $0.endEarly() }) else { return }
        claims.isOver.store(true, ordering: .relaxed)
        sink.recordDeadlock(deadlock)
        run?.cancel()
        finished.complete(with: ())
    }

    /// Ends the batch before every task settled: no task starts any more, the runs still
    /// going are cancelled, and the caller is released.
    @inlinable
    func end(cancelled: Bool) {
        guard roster.withLock({ $0.endEarly() }) else { return }
        claims.isOver.store(true, ordering: .relaxed)
        if cancelled { sink.recordCancellation() }
        // Before the caller is released: once it is, it closes the run.
        run?.cancel()
        finished.complete(with: ())
    }
}

extension Batch: TaskCancellationListener {
    /// Settles as cancelled, at once, every task cancelled for good that a lane runs, as if the
    /// lane had reported it (see "Cancelling tasks" in the documentation): the caller, which
    /// does not run that task, hears of it as of any other outcome (a fail-fast wait or a race
    /// ends, a `completions` loop hands it out, an `awaitAllResults` counts it), and the lane
    /// drops the outcome the task gets later.
    /// A caller that runs the task on its own lane returns when the task's work does.
    @usableFromInline
    func someTaskWasCancelledForGood() {
        // The tasks are read under the roster's lock, under which the caller takes them out.
        let running = roster.withLock { state in
            state.lanes.compactMap { entry -> (BatchLane, Int, Work.Element)? in
                let lane = entry.lane
                let index = lane.runningTask.load(ordering: .sequentiallyConsistent)
                guard index >= 0, index < tasks.count else { return nil }
                return (lane, index, tasks[index])
            }
        }
        for (lane, index, task) in running where Work.isCancelledForGood(task) {
            settleCancelled(index, runningOn: lane)
        }
    }

    /// Settles the task at `index`, which `lane` runs, as cancelled, unless the lane has its
    /// outcome already.
    @usableFromInline
    func settleCancelled(_ index: Int, runningOn lane: BatchLane) {
        let isDropped = roster.withLock { state in
            guard lane.dropRunningTask(index) else { return false }
            state.drop(taskOf: lane, settledBefore: lane.settledCount)
            return true
        }
        guard isDropped else { return }
        if sink.record(Work.cancelledOutcome, at: index) {
            end(cancelled: false)
        } else {
            progress?.taskSettled()
        }
        if roster.withLock({ $0.recordedDroppedTask(of: lane) }) { finished.complete(with: ()) }
    }
}
