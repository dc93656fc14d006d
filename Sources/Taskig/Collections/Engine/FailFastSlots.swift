import Synchronization

/// The values of a fail-fast `awaitAll`, written straight into the caller's result array, or
/// the first failure, which ends the batch.
///
/// A fail-fast batch releases its caller while lanes, or callbacks of tasks left pending, may
/// still be settling tasks, and a failed wait frees the array at once. So each slot has a
/// state of its own: a writer marks its slot as being written before it looks whether the
/// slots were closed, and the caller that closes them after a failure looks at every slot,
/// waits for the ones being written, and destroys the values written; a writer that finds the
/// slots closed drops its value. The states are a byte per slot, so that lanes writing their
/// own slots share no counter: 1 MB for a million tasks, the one part of a collection wait
/// that grows with the number of tasks. Fewer bits per slot would have lanes update shared
/// bytes, and a count of writers in flight would be a counter every lane writes; without the
/// states, a failed wait could neither tell which values to destroy nor when a late writer is
/// done with the array. When every task succeeded, the array is the only copy of the values:
/// no slot holds an optional, nothing is copied at the end, and the states are freed then, by
/// the caller, rather than whenever the batch lets go of its sink.
@usableFromInline
final class FailFastSlots<Value>: BatchSink {
    /// The caller's result array: each slot written once, by whoever settled its task, while
    /// the slots are open.
    @usableFromInline
    nonisolated(unsafe) let base: UnsafeMutablePointer<Value>
    @usableFromInline
    let count: Int
    /// Each slot's ``SlotState``; freed by ``finish()`` once every task succeeded, when no
    /// writer is left.
    @usableFromInline
    nonisolated(unsafe) let states: UnsafeMutablePointer<Atomic<UInt8>>
    /// Whether ``finish()`` freed the states; a relaxed atomic, a plain load and store where a
    /// class's variable pays exclusivity checks.
    @usableFromInline
    let statesAreFreed = Atomic(false)
    @usableFromInline
    let isClosed = Atomic(false)
    @usableFromInline
    let failure = LockedState<Error?>(nil)

    /// What a slot holds.
    @usableFromInline
    enum SlotState {
        @usableFromInline static var empty: UInt8 { 0 }
        @usableFromInline static var beingWritten: UInt8 { 1 }
        @usableFromInline static var written: UInt8 { 2 }
    }

    @inlinable
    init(base: UnsafeMutablePointer<Value>, count: Int) {
        self.base = base
        self.count = count
        states = .allocate(capacity: count)
        for index in 0..<count { (states + index).initialize(to: Atomic(SlotState.empty)) }
    }

    deinit {
        if !statesAreFreed.load(ordering: .relaxed) { freeStates() }
    }

    @usableFromInline
    func freeStates() {
        states.deinitialize(count: count)
        states.deallocate()
        statesAreFreed.store(true, ordering: .relaxed)
    }

    @inlinable
    var mayEndEarly: Bool { true }

    @inlinable
    var endsOnCancellation: Bool { true }

    @inlinable
    func record(_ outcome: Result<Value, Error>, at index: Int) -> Bool {
        switch outcome {
        case .success(let value):
            // Sequentially consistent, as the closing below: either this writer sees the slots
            // closed, or the closer sees this slot being written and waits for it.
            states[index].store(SlotState.beingWritten, ordering: .sequentiallyConsistent)
            if isClosed.load(ordering: .sequentiallyConsistent) {
                states[index].store(SlotState.empty, ordering: .releasing)
            } else {
                (base + index).initialize(to: value)
                states[index].store(SlotState.written, ordering: .releasing)
            }
            return false
        case .failure(let error):
            failure.withLock { first in
                if first == nil { first = error }
            }
            return true
        }
    }

    @inlinable
    func recordCancellation() {
        failure.withLock { first in
            if first == nil { first = CancellableTaskError.taskWasCancelled }
        }
    }

    /// Once the batch is over: how many values the array holds (all of them), or the first
    /// failure, thrown once the slots are closed and the values written so far destroyed.
    @inlinable
    func finish() throws -> Int {
        guard let error = failure.withLock({ $0 }) else {
            freeStates()
            return count
        }
        isClosed.store(true, ordering: .sequentiallyConsistent)
        for index in 0..<count {
            var state = states[index].load(ordering: .sequentiallyConsistent)
            while state == SlotState.beingWritten {
                Platform.yieldProcessor()
                state = states[index].load(ordering: .acquiring)
            }
            if state == SlotState.written { (base + index).deinitialize(count: 1) }
        }
        throw error
    }
}
