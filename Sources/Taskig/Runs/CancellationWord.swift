import Synchronization

/// One-way cancellation in a single atomic word, with handlers for those who register them.
///
/// Runs and tasks keep their cancellation in an `Atomic<UInt>` and call these functions on
/// it. Nobody who never registers a handler pays for a lock or an allocation: asking and
/// cancelling are atomic operations on the word. The first handler allocates a
/// ``CancellationHandlers`` table, whose retained address the word then holds.
///
/// The word:
///
/// | bits | meaning |
/// | --- | --- |
/// | 0 | cancelled |
/// | 1 | closed: the run completed, so handlers are dropped and cancelling does nothing |
/// | 2 | linked: a run's ancestors and task cancel it as they are cancelled (see ``Run``) |
/// | 3 | started: a run's work has begun, somewhere other than on its waiter (see ``Run/noteStarted()``) |
/// | the rest | the address of the handler table, or zero (tables are 16-byte aligned) |
///
/// Because the table's address and the flags share one word, a handler registered just as
/// another thread cancels is never lost: the cancelling thread sees the table if it was
/// installed first, and the registering thread's install fails if the cancel came first.
@usableFromInline
enum CancellationWord {
    @usableFromInline
    static var cancelledBit: UInt { 1 }
    @usableFromInline
    static var closedBit: UInt { 2 }
    @usableFromInline
    static var linkedBit: UInt { 4 }
    @usableFromInline
    static var startedBit: UInt { 8 }
    /// The bits that decide whether the word can still be cancelled or get handlers.
    @usableFromInline
    static var stateBits: UInt { 3 }
    @usableFromInline
    static var flagBits: UInt { 15 }

    @inlinable
    static func isCancelled(_ word: borrowing Atomic<UInt>) -> Bool {
        word.load(ordering: .acquiring) & cancelledBit != 0
    }

    /// Cancels, unless the word is already cancelled or closed, and then runs the handlers
    /// registered so far, in registration order, on this thread. Returns whether this call
    /// cancelled.
    @usableFromInline
    @discardableResult
    static func cancel(_ word: borrowing Atomic<UInt>) -> Bool {
        var current = word.load(ordering: .relaxed)
        while true {
            guard current & stateBits == 0 else { return false }
            let (exchanged, original) = word.compareExchange(
                expected: current, desired: current | cancelledBit, ordering: .acquiringAndReleasing)
            if exchanged { break }
            current = original
        }
        CancellationEpoch.advance()
        table(in: current)?.cancel()
        return true
    }

    /// Registers `handler` to run once when the word is cancelled. Runs it at once, on this
    /// thread, when the word is already cancelled; drops it when the word is closed. Returns
    /// a key for ``removeHandler(_:from:)``, or `nil` when the handler was run or dropped.
    @usableFromInline
    static func addHandler(
        _ handler: @escaping @Sendable () -> Void,
        to word: borrowing Atomic<UInt>
    ) -> CancellationHandlers.Key? {
        guard let table = installedTable(in: word) else {
            if word.load(ordering: .acquiring) & stateBits == cancelledBit { handler() }
            return nil
        }
        return table.add(handler) { word.load(ordering: .acquiring) & stateBits == cancelledBit }
    }

    /// Removes a handler that has not run; does nothing when it ran or was dropped.
    @usableFromInline
    static func removeHandler(_ key: CancellationHandlers.Key, from word: borrowing Atomic<UInt>) {
        existingTable(in: word)?.remove(key)
    }

    /// Marks the word closed: its handlers are dropped without running, later ones are
    /// ignored, and cancelling does nothing. Returns the keys the table kept for the owner
    /// (see ``CancellationHandlers/close()``).
    ///
    /// A word cancelled before it closed runs the handlers the cancelling thread has not taken
    /// yet (see ``CancellationHandlers/closeAfterCancellation()``).
    @usableFromInline
    static func close(_ word: borrowing Atomic<UInt>) -> CancellationHandlers.Links? {
        let original = word.bitwiseOr(closedBit, ordering: .acquiringAndReleasing).oldValue
        guard let table = table(in: original) else { return nil }
        return original & cancelledBit == 0 ? table.close() : table.closeAfterCancellation()
    }

    /// Notes that cancellation from above now reaches the word as it happens.
    @usableFromInline
    static func markLinked(_ word: borrowing Atomic<UInt>) {
        word.bitwiseOr(linkedBit, ordering: .releasing)
    }

    /// `true` or `false` when the word alone can tell whether its run is cancelled: it is
    /// cancelled, or it is linked and still open. `nil` when the ancestors must be asked.
    @inlinable
    static func cancellationIfKnown(_ word: borrowing Atomic<UInt>) -> Bool? {
        let bits = word.load(ordering: .acquiring)
        if bits & cancelledBit != 0 { return true }
        return bits & (linkedBit | closedBit) == linkedBit ? false : nil
    }

    /// The word's handler table, if it has one; only for the owner of the word, which must
    /// not outlive it.
    @usableFromInline
    static func existingTable(in word: borrowing Atomic<UInt>) -> CancellationHandlers? {
        table(in: word.load(ordering: .acquiring))
    }

    /// Releases the handler table; for the owner's `deinit`.
    @usableFromInline
    static func destroy(_ word: borrowing Atomic<UInt>) {
        let bits = word.load(ordering: .acquiring) & ~flagBits
        guard let address = UnsafeRawPointer(bitPattern: bits) else { return }
        Unmanaged<ManagedBuffer<CancellationHandlers.State, Platform.Lock.Primitive>>.fromOpaque(address).release()
    }

    /// The table the word points to, installing one if it has none and is neither cancelled
    /// nor closed; `nil` when it is cancelled or closed without one.
    @usableFromInline
    static func installedTable(in word: borrowing Atomic<UInt>) -> CancellationHandlers? {
        var current = word.load(ordering: .acquiring)
        while true {
            if let table = table(in: current) { return table }
            guard current & stateBits == 0 else { return nil }
            let table = CancellationHandlers()
            let address = UInt(bitPattern: Unmanaged.passRetained(table.state.buffer).toOpaque())
            precondition(address & flagBits == 0, "BUG IN TASKIG: a handler table is not aligned")
            let (exchanged, original) = word.compareExchange(
                expected: current, desired: current | address, ordering: .acquiringAndReleasing)
            if exchanged { return table }
            Unmanaged.passUnretained(table.state.buffer).release()
            current = original
        }
    }

    @inlinable
    static func table(in bits: UInt) -> CancellationHandlers? {
        guard let address = UnsafeRawPointer(bitPattern: bits & ~flagBits) else { return nil }
        return CancellationHandlers(
            buffer: Unmanaged<ManagedBuffer<CancellationHandlers.State, Platform.Lock.Primitive>>.fromOpaque(address)
                .takeUnretainedValue())
    }
}

/// A count of the cancellations made so far, anywhere: an answer of "not cancelled" that a run
/// noted while it was the current epoch still holds (see ``Run/isCancelledAbove``).
@usableFromInline
enum CancellationEpoch {
    @usableFromInline
    static let counter = Atomic<UInt>(1)

    /// Marks a note that holds for good: something above was cancelled.
    @inlinable
    static var cancelledForGood: UInt { .max }

    /// The epoch now.
    @inlinable
    static var current: UInt { counter.load(ordering: .acquiring) }

    /// Ends the epoch; called after each cancellation, once its word says so.
    @usableFromInline
    static func advance() {
        counter.wrappingAdd(1, ordering: .releasing)
    }
}
