import Dispatch
import Synchronization

/// What one thread is waiting for in Taskig, published for the wait-for cycle check, the wait
/// report and the stall monitor; one per thread that ever waited or ran a run handed to it.
///
/// A thread writes only its own record, under the record's own lock, when a wait begins and
/// ends: parking takes no lock that other threads' waits share. Others read a record under
/// that lock, so that they see each wait whole. Records are never freed: a record whose thread
/// ended is taken by the next thread that needs one (see ``ThreadRecords``), so there are never
/// more than the most threads that were alive at once.
final class ThreadRecord: Sendable {
    /// The record after this one in the list of every record, set before the record is
    /// published.
    let next: ThreadRecord?
    /// Whether a live thread owns the record.
    let isInUse = Atomic(true)
    /// The run whose work the thread runs now, as its bits (``noteRunning(_:)``), and since when
    /// (uptime in nanoseconds): only compared with other runs, never followed.
    let runningRun = Atomic<UInt>(0)
    let runningSince = Atomic<UInt64>(0)
    let state: LockedState<State>

    struct State {
        var threadID: UInt64
        var threadName: String
        /// The thread's waits, outermost first: a wait nested in another (a job handed to a
        /// waiting thread, a main-queue block run by the main thread's wait) comes after it.
        var waits: [ParkedWait] = []
        var nextWaitID: UInt64 = 0
        /// The waits the stall monitor has reported, by id.
        var reportedWaits: Set<UInt64> = []
    }

    init(next: ThreadRecord?, threadID: UInt64, threadName: String) {
        self.next = next
        state = LockedState(State(threadID: threadID, threadName: threadName))
    }

    /// What another thread reads of the record.
    struct Snapshot {
        let record: ThreadRecord
        let thread: WaitReport.ThreadIdentity
        let waits: [ParkedWait]
        let runningRun: UInt
        let runningSince: UInt64

        /// The wait of this thread in which the work of `run` waits directly: the outermost
        /// that holds it up. Waits nested in it hold it up too, through it.
        func holder(of run: Run) -> ParkedWait? {
            waits.first { $0.holds(run) }
        }
    }

    var snapshot: Snapshot {
        let (thread, waits) = state.withLock { state in
            (WaitReport.ThreadIdentity(id: state.threadID, name: state.threadName), state.waits)
        }
        return Snapshot(
            record: self, thread: thread, waits: waits, runningRun: runningRun.load(ordering: .relaxed),
            runningSince: runningSince.load(ordering: .relaxed))
    }

    /// Publishes a wait of this record's thread; returns its id.
    func begin(_ wait: (UInt64) -> ParkedWait) -> UInt64 {
        state.withLock { state in
            let id = state.nextWaitID
            state.nextWaitID += 1
            state.waits.append(wait(id))
            return id
        }
    }

    /// Ends the wait `id`, the innermost one.
    func end(_ id: UInt64) {
        let ended = state.withLock { state -> ParkedWait? in
            state.reportedWaits.remove(id)
            guard let index = state.waits.lastIndex(where: { $0.id == id }) else { return nil }
            return state.waits.remove(at: index)
        }
        // The runs it held are released outside the lock: freeing one may free much more.
        _ = ended
    }

    /// Notes that the thread runs the work of `run` from now on; returns what it ran before,
    /// for ``restoreRunning(_:)``.
    func noteRunning(_ run: Run) -> (run: UInt, since: UInt64) {
        let previous = (runningRun.load(ordering: .relaxed), runningSince.load(ordering: .relaxed))
        runningSince.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        runningRun.store(Self.bits(of: run), ordering: .relaxed)
        return previous
    }

    /// The bits ``runningRun`` holds for `run`.
    static func bits(of run: Run) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(run).toOpaque())
    }

    func restoreRunning(_ previous: (run: UInt, since: UInt64)) {
        runningRun.store(previous.run, ordering: .relaxed)
        runningSince.store(previous.since, ordering: .relaxed)
    }

    /// Gives the record up once its thread has ended.
    func release() {
        let waits = state.withLock { state -> [ParkedWait] in
            defer {
                state.waits = []
                state.reportedWaits = []
            }
            return state.waits
        }
        _ = waits
        runningRun.store(0, ordering: .relaxed)
        isInUse.store(false, ordering: .releasing)
    }

    /// Takes the record for the calling thread, whose identity it records; `false` when another
    /// thread has it.
    func take() -> Bool {
        guard isInUse.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            return false
        }
        let (id, name) = (ThreadIdentity.currentID, ThreadIdentity.currentName)
        state.withLock { state in
            state.threadID = id
            state.threadName = name
        }
        return true
    }
}

/// Every ``ThreadRecord``, and the calling thread's.
enum ThreadRecords {
    /// The newest record, as its bits; each record points to the one before. Records are
    /// never freed, so a thread that read this may follow the list without holding anything.
    private static let newest = Atomic<UInt>(0)

    /// Per thread: a retained ``Lease`` of the thread's record, released when it ends.
    private static let slot = ThreadLocalSlot(releasesObjectAtThreadExit: true)

    /// Holds a record for one thread, and gives it up when that thread's slot lets go of it.
    private final class Lease {
        let record: ThreadRecord

        init(_ record: ThreadRecord) {
            self.record = record
        }

        deinit {
            record.release()
        }
    }

    /// The calling thread's record, taken on first use: a free one, or a new one.
    static var current: ThreadRecord {
        if let pointer = slot.pointer {
            return Unmanaged<Lease>.fromOpaque(pointer).takeUnretainedValue().record
        }
        let record = firstFree() ?? published()
        slot.pointer = Unmanaged.passRetained(Lease(record)).toOpaque()
        return record
    }

    /// The calling thread's record if it has one yet.
    static var currentIfAny: ThreadRecord? {
        slot.pointer.map { Unmanaged<Lease>.fromOpaque($0).takeUnretainedValue().record }
    }

    /// Every record, newest first.
    static var all: [ThreadRecord] {
        var records: [ThreadRecord] = []
        var record = head
        while let current = record {
            records.append(current)
            record = current.next
        }
        return records
    }

    private static var head: ThreadRecord? {
        let bits = newest.load(ordering: .acquiring)
        return bits == 0
            ? nil : Unmanaged<ThreadRecord>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
    }

    private static func firstFree() -> ThreadRecord? {
        var record = head
        while let current = record {
            if !current.isInUse.load(ordering: .relaxed), current.take() { return current }
            record = current.next
        }
        return nil
    }

    /// A new record for the calling thread, added to the list.
    private static func published() -> ThreadRecord {
        let (id, name) = (ThreadIdentity.currentID, ThreadIdentity.currentName)
        var expected = newest.load(ordering: .acquiring)
        while true {
            let next =
                expected == 0
                ? nil
                : Unmanaged<ThreadRecord>.fromOpaque(UnsafeRawPointer(bitPattern: expected)!).takeUnretainedValue()
            // Retained for good: records are never freed.
            let record = Unmanaged.passRetained(ThreadRecord(next: next, threadID: id, threadName: name))
            let bits = UInt(bitPattern: record.toOpaque())
            let (exchanged, original) = newest.compareExchange(
                expected: expected, desired: bits, ordering: .acquiringAndReleasing)
            if exchanged { return record.takeUnretainedValue() }
            record.release()
            expected = original
        }
    }
}

extension Run {
    /// Runs `work`, this run's work, on the calling thread, noting for the wait report that it
    /// has started and that it runs here: for work handed to a worker or a queue, whose waiter
    /// cannot see it.
    @usableFromInline
    func runWorkHandedHere(_ work: () -> Void) {
        noteStarted()
        let record = ThreadRecords.current
        let previous = record.noteRunning(self)
        defer { record.restoreRunning(previous) }
        work()
    }
}
