/// A job that runs at most once, on whichever thread claims it first: the queue it was sent
/// to, or a waiting thread that holds that queue (see ``QueueHandOffState``). Claiming lets go
/// of the closure, so a job run by one side holds nothing for the other.
struct ClaimableJob: Sendable {
    private let slot: LockedState<(@Sendable () -> Void)?>

    init(_ job: @escaping @Sendable () -> Void) {
        slot = LockedState(job)
    }

    /// The job, for the caller to run, unless it was claimed already.
    func claim() -> (@Sendable () -> Void)? {
        slot.withLock { $0.take() }
    }

    var isClaimed: Bool {
        slot.withLock { $0 == nil }
    }
}
