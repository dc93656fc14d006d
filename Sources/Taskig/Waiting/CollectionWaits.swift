import Dispatch

/// The collection waits in progress, for the wait report: each registers when it starts and
/// leaves when its caller has what it waited for.
///
/// Registering takes a lock that every collection wait shares, once at its start and once at
/// its end, never per task.
enum CollectionWaits {
    private struct Entry {
        let wait: any CollectionWaitDescribing
        /// When it began, in uptime nanoseconds.
        let since: UInt64
        /// Whether the stall monitor has reported it.
        var isReported = false
    }

    private static let waits = LockedState<[ObjectIdentifier: Entry]>([:])

    static func begin(_ wait: any CollectionWaitDescribing) {
        let since = DispatchTime.now().uptimeNanoseconds
        waits.withLock { $0[ObjectIdentifier(wait)] = Entry(wait: wait, since: since) }
        StallMonitor.watch()
    }

    static func end(_ wait: any CollectionWaitDescribing) {
        let removed = waits.withLock { $0.removeValue(forKey: ObjectIdentifier(wait)) }
        _ = removed
    }

    /// What each wait in progress has got to, read outside the lock, the longest first.
    static var inProgress: [WaitReport.CollectionWait] {
        let now = DispatchTime.now().uptimeNanoseconds
        let entries = waits.withLock { Array($0.values) }.sorted { $0.since < $1.since }
        return entries.map { entry in entry.wait.snapshot(seconds: Double(now &- entry.since) / 1e9) }
    }

    /// How many collection waits are in progress.
    static var count: Int {
        waits.withLock { $0.count }
    }

    /// How many waits in progress, begun more than `stall` nanoseconds before `now`, the stall
    /// monitor has not reported yet; they count as reported from now on.
    static func newlyStalled(at now: UInt64, longerThan stall: UInt64) -> Int {
        waits.withLock { waits in
            var stalled = 0
            for (key, entry) in waits where !entry.isReported && now &- entry.since >= stall {
                waits[key]?.isReported = true
                stalled += 1
            }
            return stalled
        }
    }
}
