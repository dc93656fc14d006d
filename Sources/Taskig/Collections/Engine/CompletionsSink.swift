import Foundation
import Synchronization

/// The outcomes of a `completions` loop, in the order the tasks settle: lanes publish each
/// outcome as its task settles, and the loop takes them one after another, waiting when the
/// next one has not settled yet.
///
/// Publishing costs a lane one atomic increment and one store: each outcome goes into the
/// slot of its task, and the task's index into the next free position of ``order``. The loop
/// reads the positions in order, so it needs no lock either. When it has caught up with the
/// lanes, it yields its processor a few times, then sleeps: a lane wakes it only when it
/// announced it sleeps (``hasWaiter``).
///
/// Outcomes belong to this sink, not to the loop: a loop left early stops reading while lanes
/// may still be finishing tasks, and their late outcomes are freed with the sink once the last
/// lane lets go of the batch.
@usableFromInline
final class CompletionsSink<Value>: BatchSink {
    /// Each slot is written once, by the lane that ran its task, before the lane publishes
    /// its index; the loop reads it only after it read that index.
    @usableFromInline
    nonisolated(unsafe) let outcomes: UnsafeMutablePointer<Result<Value, Error>>
    /// The index of the task that settled at each position (at the position's ``entry(_:)``),
    /// plus one; zero until published, and zero again once a loop left early took it out of
    /// order (see ``takeReady(after:)``).
    /// Shared by the lanes and the loop, which access its positions only atomically.
    @usableFromInline
    nonisolated(unsafe) let order: UnsafeMutablePointer<Atomic<Int>>
    /// How far apart consecutive positions lie in ``order``: see ``entry(_:in:stripe:)``.
    @usableFromInline
    let stripe: Int
    /// How many outcomes lanes have published: the next free position. Every lane increments
    /// it for every task, so it lies alone on its cache lines (see ``init(count:)``): beside
    /// the fields that every lane reads for every task (``outcomes``, ``order``,
    /// ``hasWaiter``), each increment would make the other lanes fetch those again (row 12a).
    @usableFromInline
    nonisolated(unsafe) let published: UnsafeMutablePointer<Atomic<Int>>
    /// The positions before this one were taken by the loop; set when the loop ends.
    @usableFromInline
    let takenPrefix = Atomic(0)
    @usableFromInline
    let count: Int
    @usableFromInline
    let isCancelled = Atomic(false)
    @usableFromInline
    let hasWaiter = Atomic(false)
    @usableFromInline
    let waiter = LockedState<CompletionCell<Void>?>(nil)

    @inlinable
    init(count: Int) {
        self.count = count
        outcomes = .allocate(capacity: count)
        stripe = (count + 7) / 8
        order = .allocate(capacity: 8 * stripe)
        for offset in 0..<8 * stripe {
            (order + offset).initialize(to: Atomic(0))
        }
        // Two lines: Intel's processors fetch lines in pairs.
        published = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 128)
            .bindMemory(to: Atomic<Int>.self, capacity: 1)
        published.initialize(to: Atomic(0))
    }

    deinit {
        for position in takenPrefix.load(ordering: .relaxed)..<count {
            let tagged = entry(position).pointee.load(ordering: .acquiring)
            if tagged != 0 { (outcomes + tagged - 1).deinitialize(count: 1) }
        }
        order.deinitialize(count: 8 * stripe)
        order.deallocate()
        published.deinitialize(count: 1)
        published.deallocate()
        outcomes.deallocate()
    }

    /// Where `position` lies in `order`, `stripe` apart from the next: consecutive positions,
    /// which different lanes publish at the same time, lie on different cache lines. Next to
    /// each other, a lane's store would invalidate the line the other lane is writing. Row 12a.
    @inlinable
    static func entry(
        _ position: Int, in order: UnsafeMutablePointer<Atomic<Int>>, stripe: Int
    )
        -> UnsafeMutablePointer<Atomic<Int>>
    {
        order + ((position & 7) &* stripe &+ (position &>> 3))
    }

    /// Where `position` lies in this sink's `order`.
    @inlinable
    func entry(_ position: Int) -> UnsafeMutablePointer<Atomic<Int>> {
        Self.entry(position, in: order, stripe: stripe)
    }

    /// A view of the sink's memory for a loop that only reads it: with no lane of its own to
    /// run and no cancellation seen, it takes each outcome that has settled straight from
    /// here. The batch keeps the sink alive, so the view counts no reference per outcome
    /// (row 12a).
    @usableFromInline
    struct Reader {
        @usableFromInline
        let order: UnsafeMutablePointer<Atomic<Int>>
        @usableFromInline
        let outcomes: UnsafeMutablePointer<Result<Value, Error>>
        @usableFromInline
        let stripe: Int

        @inlinable
        init(_ sink: CompletionsSink) {
            order = sink.order
            outcomes = sink.outcomes
            stripe = sink.stripe
        }

        /// The index of the task that settled at `position`, plus one; zero when none has yet.
        @inlinable
        func indexPlusOne(at position: Int) -> Int {
            CompletionsSink.entry(position, in: order, stripe: stripe).pointee.load(ordering: .acquiring)
        }

        /// Moves out the outcome of the task at `index`, read from a position.
        @inlinable
        func take(_ index: Int) -> Result<Value, Error> {
            (outcomes + index).move()
        }
    }

    @inlinable
    var mayEndEarly: Bool { true }

    @inlinable
    var endsOnCancellation: Bool { true }

    @inlinable
    func record(_ outcome: Result<Value, Error>, at index: Int) -> Bool {
        (outcomes + index).initialize(to: outcome)
        let position = published.pointee.wrappingAdd(1, ordering: .relaxed).oldValue
        // Sequentially consistent, with the loader's announcement: either the loop sees this
        // index before it sleeps, or this lane sees that it sleeps.
        entry(position).pointee.store(index + 1, ordering: .sequentiallyConsistent)
        // Only the first lane to see the announcement wakes the loop: the others go on.
        if hasWaiter.load(ordering: .sequentiallyConsistent) && hasWaiter.exchange(false, ordering: .relaxed) {
            wakeWaiter()
        }
        return false
    }

    @inlinable
    func recordCancellation() {
        isCancelled.store(true, ordering: .sequentiallyConsistent)
        wakeWaiter()
    }

    @usableFromInline
    func wakeWaiter() {
        waiter.withLock { $0.take() }?.complete(with: ())
    }

    /// The index of the task that settled at `position`, waiting for it when it has not
    /// settled yet, a wait that shows as `subject` says; `nil` when the batch was cancelled
    /// before it did.
    @inlinable
    func indexSettled(at position: Int, for subject: () -> WaitSubject) -> Int? {
        while true {
            let tagged = entry(position).pointee.load(ordering: .acquiring)
            if tagged != 0 { return tagged - 1 }
            if isCancelled.load(ordering: .acquiring) { return nil }
            if !publishedWhileYielding(at: position) { sleepUntilPublished(at: position, for: subject) }
        }
    }

    /// Whether `position` was published while the loop gave up its processor a few times:
    /// trivial tasks settle within that, and then the loop need not sleep, nor a lane wake
    /// it. Sixteen yields: row 12a (a `completions` loop against `awaitAllResults`). Tasks that
    /// take longer cost the loop a few yields before it sleeps; on one core, the yields let the
    /// lanes run.
    @usableFromInline
    func publishedWhileYielding(at position: Int) -> Bool {
        for _ in 0..<16 {
            Platform.yieldProcessor()
            if entry(position).pointee.load(ordering: .relaxed) != 0 { return true }
        }
        return false
    }

    @usableFromInline
    func sleepUntilPublished(at position: Int, for subject: () -> WaitSubject) {
        let cell = CompletionCell<Void>()
        waiter.withLock { $0 = cell }
        hasWaiter.store(true, ordering: .sequentiallyConsistent)
        if entry(position).pointee.load(ordering: .sequentiallyConsistent) == 0
            && !isCancelled.load(ordering: .sequentiallyConsistent)
        {
            BlockingWait.value(of: cell, for: subject)
        }
        hasWaiter.store(false, ordering: .relaxed)
        waiter.withLock { $0 = nil }
    }

    /// Moves out the outcome of the task at `index`, which the loop read from a position.
    @inlinable
    func take(_ index: Int) -> Result<Value, Error> {
        (outcomes + index).move()
    }

    /// For a loop that the batch's cancellation ended at `position`: the outcomes published
    /// at that position or after it, taken out of order.
    @usableFromInline
    func takeReady(after position: Int) -> [(offset: Int, result: Result<Value, Error>)] {
        var ready: [(offset: Int, result: Result<Value, Error>)] = []
        for later in position..<min(published.pointee.load(ordering: .acquiring), count) {
            let tagged = entry(later).pointee.exchange(0, ordering: .acquiring)
            if tagged != 0 { ready.append((tagged - 1, take(tagged - 1))) }
        }
        return ready
    }

    /// The indices of the tasks taken at the positions before `position`.
    @usableFromInline
    func indicesTaken(before position: Int) -> [Int] {
        (0..<position).map { entry($0).pointee.load(ordering: .relaxed) - 1 }
    }
}
