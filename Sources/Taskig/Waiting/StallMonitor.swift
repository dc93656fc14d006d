import Foundation

/// With `TASKIG_STALL_REPORT=<seconds>` in the environment, prints the wait report to standard
/// error when a wait has been parked that long, once for that wait; and when a collection wait
/// has lasted that long, once for it, since its caller may be running a lane, not parked.
///
/// Without the variable nothing runs and nothing is printed. With it, one thread watches the
/// parked waits while there are any: it starts with the first wait that parks, and ends once
/// none has been parked for a while. Waits themselves keep sleeping as they would: the main
/// thread's wait sleeps in its run loop without a time limit.
enum StallMonitor {
    /// The stall time the environment asks for, read once.
    static let stallSeconds: Double? = {
        guard let text = ProcessInfo.processInfo.environment["TASKIG_STALL_REPORT"], let seconds = Double(text),
            seconds > 0, seconds.isFinite
        else { return nil }
        return seconds
    }()

    /// Whether the monitor's thread runs.
    private static let isRunning = LockedState(false)

    /// Makes sure the monitor watches, when the environment asks for it: called by each wait
    /// that parks, and each collection wait as it begins.
    static func watch() {
        guard let stallSeconds else { return }
        let starts = isRunning.withLock { isRunning in
            defer { isRunning = true }
            return !isRunning
        }
        if starts { Thread.detachNewThread { monitor(stallSeconds: stallSeconds) } }
    }

    /// Looks at the parked waits every quarter of the stall time (at most every second), and
    /// prints the report for the waits parked longer than it; ends once nothing has been
    /// parked for two seconds.
    private static func monitor(stallSeconds: Double) {
        Thread.current.name = "taskig.stall-monitor"
        // As every thread of Taskig's (see ``WorkerPool``): a crash here prints its report.
        let signalStack = Platform.installSignalStack()
        defer { signalStack.map(Platform.removeSignalStack) }
        let interval = min(max(stallSeconds / 4, 0.01), 1)
        var idleSince = DispatchTime.now().uptimeNanoseconds
        while true {
            Thread.sleep(forTimeInterval: interval)
            let now = DispatchTime.now().uptimeNanoseconds
            let stall = UInt64(stallSeconds * 1e9)
            let (parked, stalledParked) = stalledWaits(at: now, longerThan: stall)
            let stalled = stalledParked + CollectionWaits.newlyStalled(at: now, longerThan: stall)
            if stalled > 0 {
                // The report shows every wait: none of them is reported again.
                _ = stalledWaits(at: now, longerThan: 0)
                _ = CollectionWaits.newlyStalled(at: now, longerThan: 0)
                FileHandle.standardError.write(
                    Data(
                        ("Taskig: \(stalled) wait\(stalled == 1 ? "" : "s") stalled for more than "
                            + "\(WaitReport.Whereabouts.format(stallSeconds)) (TASKIG_STALL_REPORT)\n"
                            + "\(WaitReport.current())\n").utf8))
            }
            if parked > 0 || CollectionWaits.count > 0 {
                idleSince = now
            } else if now &- idleSince > 2_000_000_000 {
                isRunning.withLock { $0 = false }
                // A wait that parked just before saw the monitor running and started none: look
                // once more, and go on unless another monitor has started since.
                guard stalledWaits(at: now, longerThan: .max).parked > 0 || CollectionWaits.count > 0,
                    isRunning.withLock({ isRunning in
                        defer { isRunning = true }
                        return !isRunning
                    })
                else { return }
                idleSince = now
            }
        }
    }

    /// How many waits are parked, and how many of them, parked longer than `stall`
    /// nanoseconds, are reported now for the first time.
    private static func stalledWaits(at now: UInt64, longerThan stall: UInt64) -> (parked: Int, stalled: Int) {
        var parked = 0
        var stalled = 0
        for record in ThreadRecords.all where record.isInUse.load(ordering: .relaxed) {
            record.state.withLock { state in
                for wait in state.waits where wait.parks {
                    parked += 1
                    if now &- wait.since >= stall, state.reportedWaits.insert(wait.id).inserted { stalled += 1 }
                }
            }
        }
        return (parked, stalled)
    }
}
