/// Writes each outcome straight into its slot of the caller's result array: for batches
/// that wait for every task and cannot be cancelled (a plain `awaitAll` of tasks that cannot
/// fail, `awaitAllResults` outside any cancellable run). The result array is the only copy
/// of the outcomes.
@usableFromInline
struct OrderedSlots<Outcome>: BatchSink {
    /// Each slot is written by the one lane that ran its task, before the batch counts it
    /// settled, which is what the caller waits for.
    @usableFromInline
    nonisolated(unsafe) let base: UnsafeMutablePointer<Outcome>

    @inlinable
    init(base: UnsafeMutablePointer<Outcome>) {
        self.base = base
    }

    @inlinable
    var mayEndEarly: Bool { false }

    @inlinable
    var endsOnCancellation: Bool { false }

    @inlinable
    func record(_ outcome: Outcome, at index: Int) -> Bool {
        (base + index).initialize(to: outcome)
        return false
    }

    @inlinable
    func recordCancellation() {}

    /// Tasks that cannot fail cannot report a deadlock either: the program stops with it, as it
    /// would otherwise hang.
    @inlinable
    func recordDeadlock(_ deadlock: TaskigError) {
        WaitEnd<Void>.deadlock(deadlock).valueOrStop("awaitAll() of tasks that cannot fail")
    }
}
