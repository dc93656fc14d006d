import Foundation

extension Batch: CollectionWaitDescribing {
    @usableFromInline
    func snapshot(seconds: TimeInterval) -> WaitReport.CollectionWait {
        let (lanes, inFlight, settled) = roster.withLock { state in
            (
                state.lanes.count,
                state.lanes.filter { $0.lane.taskBoundaries.load(ordering: .relaxed) & 1 == 1 }.count,
                state.lanes.reduce(state.settledByEndedLanes + state.settledWithoutTheirLanes) {
                    $0 + $1.lane.settledCount
                }
            )
        }
        return WaitReport.CollectionWait(
            callSite: site.callSite, operation: operation.description, concurrency: concurrency, lanes: lanes,
            inFlight: inFlight, settled: settled, total: taskCount, seconds: seconds)
    }

    /// Shows the batch in wait reports until ``unregisterFromReports()``.
    @usableFromInline
    func registerForReports() {
        CollectionWaits.begin(self)
    }

    @usableFromInline
    func unregisterFromReports() {
        CollectionWaits.end(self)
    }
}

/// How the lanes of a batch wait for their tasks, as the wait report and the cycle check see
/// it: where the collection wait was called, and whether another task's outcome may end a
/// lane's wait (the batch ends early, and cancels the run the lane waits for).
@usableFromInline
struct LaneWaits {
    @usableFromInline
    let site: StaticCallSite
    @usableFromInline
    let othersMayEndThem: Bool

    @inlinable
    init(site: StaticCallSite, othersMayEndThem: Bool) {
        self.site = site
        self.othersMayEndThem = othersMayEndThem
    }
}
