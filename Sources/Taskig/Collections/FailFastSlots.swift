/// The values of a fail-fast `awaitAll`: each in its slot, or the first failure, which ends
/// the batch.
///
/// The slots belong to this sink, not to the caller, because a fail-fast batch releases its
/// caller while lanes may still be finishing tasks: their late values go into slots nobody
/// reads, and are freed with the sink once the last lane lets go of the batch. When every
/// task succeeded, ``values()`` moves them into the caller's array.
@usableFromInline
final class FailFastSlots<Value>: BatchSink {
    /// Each slot is written once, by the lane that ran its task; read only after every task
    /// settled, which the batch's completion orders after the writes.
    @usableFromInline
    nonisolated(unsafe) let slots: UnsafeMutablePointer<Value?>
    @usableFromInline
    let count: Int
    @usableFromInline
    let failure = LockedState<Error?>(nil)

    @inlinable
    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    @inlinable
    var mayEndEarly: Bool { true }

    @inlinable
    var endsOnCancellation: Bool { true }

    @inlinable
    func record(_ outcome: Result<Value, Error>, at index: Int) -> Bool {
        switch outcome {
        case .success(let value):
            slots[index] = value
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

    /// Every value, in input order, or the first failure; once the batch is over.
    @inlinable
    func values() throws -> [Value] {
        if let error = failure.withLock({ $0 }) { throw error }
        return [Value](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count {
                (buffer.baseAddress! + index).initialize(to: slots[index].take()!)
            }
            initialized = count
        }
    }
}
