import Dispatch

/// Where the lanes of a ``Batch`` run.
extension Batch {
    /// Where the lanes run, and whether the caller runs one itself: see
    /// ``RunPlacement/ofLanes(on:mayEndEarly:isRace:someTaskIsBound:)``. Tasks bound for a queue the
    /// caller holds reach it through that queue's hand-off while it waits (see ``QueueHandOff``).
    @inlinable
    static func placement(
        lanesOn queue: DispatchQueue, tasks: [Work.Element], mayEndEarly: Bool, isRace: Bool
    ) -> (RunPlacement, callerRunsLane: Bool) {
        RunPlacement.ofLanes(on: WorkQueue(queue), mayEndEarly: mayEndEarly, isRace: isRace) { isBound in
            tasks.contains { task in Work.workQueue(of: task).map(isBound) ?? false }
        }
    }

    /// Sends `lane`, on the roster, to run where the lanes run; returns `false` when it was
    /// not taken: the pool turned it down, or the caller runs every task.
    @inlinable
    func send(_ lane: BatchLane) -> Bool {
        placement.sendElsewhere { self.laneLoop(self, lane) }
    }

    /// Whether a lane the batch starts is sure to run: on workers that may queue it, or on a
    /// queue; not when the caller runs every task, nor when the pool may turn a lane down.
    @inlinable
    var lanesAlwaysStart: Bool {
        placement.alwaysSendsElsewhere
    }
}
