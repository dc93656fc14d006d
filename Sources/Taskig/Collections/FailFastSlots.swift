import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The values of a fail-fast `awaitAll`, written straight into the caller's result array, or
/// the first failure, which ends the batch.
///
/// A fail-fast batch releases its caller while lanes, or callbacks of tasks left pending, may
/// still be settling tasks, and a failed wait frees the array at once. So a value is only
/// written while the slots are open: a writer counts itself before it looks, and the caller
/// that closes the slots after a failure waits for the writers it counted (a store each), then
/// destroys the values written so far, which a bit per slot records. Late values are dropped.
/// When every task succeeded, the array is the only copy of the values: no slot holds an
/// optional, and nothing is copied at the end.
@usableFromInline
final class FailFastSlots<Value>: BatchSink {
    /// The caller's result array: each slot written once, by whoever settled its task, while
    /// the slots are open.
    @usableFromInline
    nonisolated(unsafe) let base: UnsafeMutablePointer<Value>
    @usableFromInline
    let count: Int
    /// A bit per slot, set once its value is written.
    @usableFromInline
    nonisolated(unsafe) let written: UnsafeMutablePointer<Atomic<UInt>>
    @usableFromInline
    let wordCount: Int
    @usableFromInline
    let writers = Atomic(0)
    @usableFromInline
    let isClosed = Atomic(false)
    @usableFromInline
    let failure = LockedState<Error?>(nil)

    @inlinable
    init(base: UnsafeMutablePointer<Value>, count: Int) {
        self.base = base
        self.count = count
        wordCount = (count + UInt.bitWidth - 1) / UInt.bitWidth
        written = .allocate(capacity: wordCount)
        for word in 0..<wordCount { (written + word).initialize(to: Atomic(0)) }
    }

    deinit {
        written.deinitialize(count: wordCount)
        written.deallocate()
    }

    @inlinable
    var mayEndEarly: Bool { true }

    @inlinable
    var endsOnCancellation: Bool { true }

    @inlinable
    func record(_ outcome: Result<Value, Error>, at index: Int) -> Bool {
        switch outcome {
        case .success(let value):
            writers.add(1, ordering: .sequentiallyConsistent)
            if !isClosed.load(ordering: .sequentiallyConsistent) {
                (base + index).initialize(to: value)
                written[index / UInt.bitWidth].bitwiseOr(1 << UInt(index % UInt.bitWidth), ordering: .relaxed)
            }
            writers.subtract(1, ordering: .sequentiallyConsistent)
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
        guard let error = failure.withLock({ $0 }) else { return count }
        isClosed.store(true, ordering: .sequentiallyConsistent)
        while writers.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
        for index in 0..<count
        where written[index / UInt.bitWidth].load(ordering: .acquiring) & (1 << UInt(index % UInt.bitWidth)) != 0 {
            (base + index).deinitialize(count: 1)
        }
        throw error
    }
}
