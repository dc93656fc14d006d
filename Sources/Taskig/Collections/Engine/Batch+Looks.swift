import Dispatch
import Synchronization

/// How a ``Batch`` looks at its lanes to start more beside those that block.
extension Batch {
    /// Looks at the lanes in `seconds`, on Taskig's timer queue (see ``look(after:looks:)``),
    /// remembering what the last looks saw (`looks`).
    @usableFromInline
    func lookAgain(after seconds: Double, looks: LaneLooks = LaneLooks()) {
        Scheduling.after(seconds) { self.look(after: seconds, looks: looks) }
    }

    /// Looks at the lanes again soon, to confirm lanes the last look found asleep in a task for
    /// the first time, without changing how far apart the looks after it come (`last`).
    @usableFromInline
    func confirmSoon(after last: Double, looks: LaneLooks) {
        Scheduling.after(CollectionTuning.confirmingLaneLook) { self.look(after: last, looks: looks) }
    }

    /// Starts lanes after a look at the lanes, and looks again: a millisecond later when it
    /// started some, twice as late as `last` otherwise; sooner, after
    /// ``CollectionTuning/confirmingLaneLook``, when it found a lane asleep in its task that the
    /// look before had not found so, and then on that schedule again; no more once every task
    /// has started or the batch is over.
    ///
    /// Each lane whose thread is blocked in a task (see
    /// ``BatchLane/look(now:times:lastLook:)``) gets one more lane beside it, once
    /// per task: its task waits, and another task can use its core meanwhile. While no lane on
    /// a thread moves, blocked lanes get one more at every look, so that lanes of tasks that
    /// block double at each look; a task that blocks for long beside tasks that compute gets
    /// one lane. Lanes whose tasks compute get none, however long their tasks, even when other
    /// threads keep them waiting for a core: more lanes than cores would only take turns on
    /// them. Lanes left pending hold no thread, and are not looked at; nor are any once the
    /// batch has `concurrency` lanes. A lane the pool turns down (a nested wait's, while no
    /// thread is free) is asked for again at the next look.
    @usableFromInline
    func look(after last: Double, looks previous: LaneLooks) {
        guard finished.completedValue == nil, claims.hasTasksToStart else { return }
        var (looks, lanesOnThreads) = roster.withLock { state in
            (
                previous.keeping(state.lanes),
                state.lanes.count < concurrency
                    ? state.lanes.compactMap { entry in
                        entry.lane.isPending.load(ordering: .relaxed) ? nil : entry.threadTimes.map { (entry.lane, $0) }
                    } : []
            )
        }
        let now = DispatchTime.now().uptimeNanoseconds
        var blocked: [BatchLane] = []
        var toConfirm = false
        for (lane, times) in lanesOnThreads {
            switch looks.look(at: lane, { $0.look(now: now, times: times, lastLook: &$1) }) {
            case .blocked: blocked.append(lane)
            case .asleepInTask: toConfirm = true
            case .notBlocked: break
            }
        }
        let helped = blocked.count == lanesOnThreads.count ? blocked : blocked.filter { !looks.wasHelpedInThisTask($0) }
        // A lane the pool turned down helped nobody: the next look may ask again.
        let started = startLanes(helped.count)
        for lane in helped.prefix(started) { looks.noteHelped(lane) }
        if toConfirm { return confirmSoon(after: started > 0 ? CollectionTuning.firstLaneLook : last, looks: looks) }
        lookAgain(
            after: started > 0
                ? CollectionTuning.firstLaneLook : min(2 * last, CollectionTuning.longestTimeBetweenLaneLooks),
            looks: looks)
    }
}

/// What a batch's looks remember of its lanes from one look to the next: what the last look
/// at each lane saw, and the lane's ``BatchLane/taskBoundaries`` when a look last gave it
/// another beside it. The looks run one after another on Taskig's timer queue, so this passes
/// from each to the next as a value.
@usableFromInline
struct LaneLooks: Sendable {
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline
        let lane: BatchLane
        @usableFromInline
        var last: BatchLane.Look?
        @usableFromInline
        var boundariesWhenHelped = UInt.max

        @usableFromInline
        init(lane: BatchLane) {
            self.lane = lane
        }
    }

    @usableFromInline
    var entries: [Entry] = []

    @usableFromInline
    init() {}

    /// What is remembered of the lanes on the roster now (`lanes`); nothing of the others.
    @usableFromInline
    func keeping(_ lanes: [BatchState.Lane]) -> LaneLooks {
        var kept = self
        kept.entries.removeAll { entry in !lanes.contains { $0.lane === entry.lane } }
        return kept
    }

    /// Looks at `lane` with `body`, which reads and replaces what the last look saw.
    @usableFromInline
    mutating func look<Finding>(
        at lane: BatchLane, _ body: (BatchLane, inout BatchLane.Look?) -> Finding
    ) -> Finding {
        let position = position(of: lane)
        return body(lane, &entries[position].last)
    }

    /// Whether a look gave `lane` another beside it during the task it was in at the last look.
    @usableFromInline
    mutating func wasHelpedInThisTask(_ lane: BatchLane) -> Bool {
        let entry = entries[position(of: lane)]
        return entry.last?.boundaries == entry.boundariesWhenHelped
    }

    /// Notes that the last look gave `lane` another beside it.
    @usableFromInline
    mutating func noteHelped(_ lane: BatchLane) {
        let position = position(of: lane)
        entries[position].boundariesWhenHelped = entries[position].last?.boundaries ?? .max
    }

    /// Where `lane` is among the entries, added when it is not there yet.
    @usableFromInline
    mutating func position(of lane: BatchLane) -> Int {
        if let position = entries.firstIndex(where: { $0.lane === lane }) { return position }
        entries.append(Entry(lane: lane))
        return entries.count - 1
    }
}
