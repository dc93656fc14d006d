import Dispatch

/// One wait of a thread, published in its ``ThreadRecord`` while it lasts: a blocking wait
/// that parks, or a wait that runs a future's work in place (the work it waits for is then on
/// the same stack, above it).
struct ParkedWait {
    /// Unique in its record: a wait that ended is never mistaken for a later one.
    let id: UInt64
    let subject: WaitSubject
    /// The runs whose work this wait holds up: those on the thread's stack below it (see
    /// ``CurrentRun/heldHere``).
    let heldRuns: [Run]
    /// Whether the wait runs in a lane of a collection that another task may end, which would
    /// release it by cancelling the lane's task: then it is no edge, whatever it waits for.
    let othersMayEndIt: Bool
    /// When it began, in uptime nanoseconds.
    let since: UInt64
    /// Whether the thread parks: `false` while it runs the awaited work itself.
    let parks: Bool
    /// Whether the thread runs a Swift task, whose cooperative pool the wait starves (see
    /// ``ThreadIdentity/isInsideSwiftTask``).
    let isInsideSwiftTask: Bool
    /// The label of the queue whose block the waiting thread runs, if any (see
    /// ``ThreadIdentity/currentQueueLabel``): the queue it holds, and serves meanwhile when
    /// Taskig knows it.
    let heldQueue: String?

    /// Whether the wait is an edge of the wait-for graph (see ``WaitCycle``).
    var isEdge: Bool { subject.endsOnlyWithTarget && !othersMayEndIt }

    /// Whether the work of `run` waits directly in this wait, as the outermost wait of its
    /// thread that holds it up (see ``ThreadRecord/Snapshot/holder(of:)``).
    func holds(_ run: Run) -> Bool {
        heldRuns.contains { $0 === run }
    }
}
