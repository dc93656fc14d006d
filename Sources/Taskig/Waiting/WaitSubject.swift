import Dispatch
import Foundation

/// What a blocking wait waits for, as the cycle check, the wait report and the stall monitor
/// see it. A wait builds it only once it is about to park: a wait whose work ran in place, or
/// ended within the brief spin, never does.
@usableFromInline
struct WaitSubject {
    /// Where the wait was called.
    @usableFromInline
    let site: StaticCallSite
    /// The run whose outcome ends the wait, when one run's does.
    @usableFromInline
    let target: Run?
    /// Whether the wait gives up at a deadline.
    @usableFromInline
    let hasDeadline: Bool
    /// Whether only `target`'s outcome can end the wait: it has no deadline, and no other
    /// outcome (another task of a race, a failure under fail-fast) could end it first. Only
    /// such a wait is an edge of the wait-for graph (see ``WaitCycle``).
    @usableFromInline
    let endsOnlyWithTarget: Bool
    /// What the work is, for the report.
    @usableFromInline
    let work: WaitedWork

    /// A wait at `site` for `target`'s outcome, which `othersMayEndIt` (a race, a fail-fast
    /// collection) or a deadline may end first.
    @inlinable
    init(site: StaticCallSite, target: Run?, hasDeadline: Bool = false, othersMayEndIt: Bool = false, work: WaitedWork)
    {
        self.site = site
        self.target = target
        self.hasDeadline = hasDeadline
        endsOnlyWithTarget = target != nil && !hasDeadline && !othersMayEndIt
        self.work = work
    }
}

/// The work a wait waits for, as a report names it.
@usableFromInline
enum WaitedWork {
    /// A run of a task of `type`, whose work runs on `queue` (`nil`: no queue of its own, a
    /// future's waiters), started at `startedAt` when it is a future's.
    case task(type: Any.Type, queue: WorkQueue?, startedAt: StaticCallSite?)
    /// Every outcome of a collection wait, or the next one of a `completions` loop.
    case collection(any CollectionWaitDescribing, nextOutcomeOnly: Bool)
    /// The runs of `count` tasks of different types (the free function `awaitAll(_:_:…)`).
    case tasks(count: Int)
}

/// A collection wait as a report shows it, read while it runs (see ``WaitReport/CollectionWait``).
@usableFromInline
protocol CollectionWaitDescribing: AnyObject, Sendable {
    /// Where the wait was called, its operation and bound, and how far it got, `seconds` into
    /// it: weakly consistent, each figure as it was at some moment of the call.
    func snapshot(seconds: TimeInterval) -> WaitReport.CollectionWait
}
