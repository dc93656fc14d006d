import Synchronization

/// One run of a task: the unit of cancellation.
///
/// A task is a reusable description; every `await()`, `async`, collection wait and `start()`
/// makes a run of it. Cancelling a run stops that run only: its waiters are released with
/// ``CancellableTaskError/taskWasCancelled``, a run that has not started never starts, and
/// its work can see the cancellation (see ``CurrentRun``). The task stays usable.
///
/// Runs form a tree, as in structured concurrency. A run started while another run's work
/// executes on the thread is that run's child, and a run is cancelled when its parent is, or
/// when its task is cancelled for good (``ThrowableTask/cancel()``). Until someone registers a
/// handler on a run, this costs nothing: asking whether a run is cancelled walks up the tree.
/// The first handler links the run to its parent and its task, so that their cancellation
/// reaches it as it happens; closing the run removes those links.
///
/// A run is closed once its work has reported its outcome: from then on it drops its
/// handlers, and cancelling it does nothing.
@usableFromInline
final class Run: Sendable {
    @usableFromInline
    let word: Atomic<UInt>
    /// The run whose work started this one, retained, and released through
    /// ``ChainRelease``: the last run of a million-deep tree may hold the only reference to
    /// its parent, which holds the only one to its own, and so on.
    @usableFromInline
    let retainedParent: Unmanaged<Run>?
    /// The cancellation the task's copies share, when the task has one.
    @usableFromInline
    let task: (any CancellationSource)?
    /// Whether anything other than the run's own work can cancel it while it runs: its task
    /// has other copies, or a wait, a future or a collection may give up on it, or an
    /// ancestor can be cancelled. Only then must its waiter be free to leave before the work
    /// ends, so only then does the work need a thread other than the waiter's.
    @usableFromInline
    let isCancellable: Bool
    /// What the last walk up from here found about the run's task and ancestors (see
    /// ``isCancelledAbove``): ``CancellationEpoch/cancelledForGood``, or the epoch in which
    /// none of them was cancelled; zero before any walk.
    @usableFromInline
    let aboveIsKnown = Atomic<UInt>(0)
    /// The run at the top of this run's tree, or `nil` when this run is the top: kept alive by
    /// the chain of ``retainedParent``s. Cancelling the top of a tree a million deep reaches
    /// the runs below it one link at a time, so a run also asks the top directly, which
    /// answers a body that polls its run at once.
    @usableFromInline
    let treeRoot: Unmanaged<Run>?

    @inlinable
    init(parent: Run?, task: (any CancellationSource)? = nil, cancellable: Bool) {
        // With nothing above it, the word alone tells whether the run is cancelled.
        word = Atomic(parent == nil && task == nil ? CancellationWord.linkedBit : 0)
        retainedParent = parent.map { Unmanaged.passRetained($0) }
        treeRoot = parent.map { $0.treeRoot ?? Unmanaged.passUnretained($0) }
        self.task = task
        self.isCancellable = cancellable || (parent?.isCancellable ?? false)
    }

    deinit {
        CancellationWord.destroy(word)
        if let retainedParent { ChainRelease.release(Unmanaged.fromOpaque(retainedParent.toOpaque())) }
    }

    /// The run whose work started this one.
    @inlinable
    var parent: Run? { retainedParent?.takeUnretainedValue() }

    /// Whether this run, its task or one of its ancestors has been cancelled.
    @inlinable
    @inline(__always)
    var isCancelled: Bool {
        // A run whose word knows the answer (a linked run, or one with nothing above it) is
        // asked once per task by every collection wait: that answer costs one load.
        if let known = CancellationWord.cancellationIfKnown(word) {
            return known || (treeRoot != nil && cancelIfTreeRootIsCancelled())
        }
        return isTreeRootCancelled || isCancelledAbove
    }

    /// Cancels the run when the top of its tree is cancelled; returns whether it is.
    ///
    /// The cancellation may not have reached the run through its links yet. Its work may end
    /// as soon as it sees the answer, and then its handlers would never run: they run now, on
    /// this thread.
    @usableFromInline
    func cancelIfTreeRootIsCancelled() -> Bool {
        guard isTreeRootCancelled else { return false }
        cancel()
        return true
    }

    /// Whether the top of the run's tree has been cancelled (see ``treeRoot``).
    @inlinable
    var isTreeRootCancelled: Bool {
        guard let treeRoot else { return false }
        return treeRoot._withUnsafeGuaranteedRef { CancellationWord.isCancelled($0.word) }
    }

    /// Whether the run's task or one of its ancestors has been cancelled.
    ///
    /// Asked by every run a loop starts, a million levels deep in a recursive loop, so it does
    /// not walk every ancestor each time: a walk notes its answer in each run it passed
    /// (``aboveIsKnown``), and the next walk stops at the first run whose note still holds. A
    /// note of "not cancelled" holds until anything is cancelled anywhere
    /// (``CancellationEpoch``); a note of "cancelled" holds for good.
    @usableFromInline
    var isCancelledAbove: Bool {
        let epoch = CancellationEpoch.current
        var answer = false
        var run = self
        while true {
            let note = run.aboveIsKnown.load(ordering: .relaxed)
            if note == epoch { break }
            if note == CancellationEpoch.cancelledForGood {
                answer = true
                break
            }
            if let task = run.task, task.isCancelled {
                answer = true
                break
            }
            guard let parent = run.parent else { break }
            if let known = CancellationWord.cancellationIfKnown(parent.word) {
                answer = known
                break
            }
            run = parent
        }
        // The same walk again, to note the answer in the runs it passed.
        let note = answer ? CancellationEpoch.cancelledForGood : epoch
        var noted = self
        while noted !== run {
            noted.aboveIsKnown.store(note, ordering: .relaxed)
            guard let parent = noted.parent else { break }
            noted = parent
        }
        run.aboveIsKnown.store(note, ordering: .relaxed)
        return answer
    }

    /// Cancels the run and, through their links, its children. Returns whether this call
    /// cancelled it; a closed run cannot be cancelled.
    @usableFromInline
    @discardableResult
    func cancel() -> Bool {
        CancellationWord.cancel(word)
    }

    /// The outcome the run reports for what its work returned: the cancellation, once the run
    /// is cancelled. The canceller releases the waiters with the cancellation, but the work
    /// can see it and return first; every waiter must get the same outcome either way.
    @inlinable
    func reporting<Value>(_ outcome: Result<Value, Error>) -> Result<Value, Error> {
        isCancelled ? .failure(CancellableTaskError.taskWasCancelled) : outcome
    }

    /// Ends `run` once its work has reported `outcome`: closes it, then hands `deliver` the
    /// outcome the run reports (see ``reporting(_:)``). Closed first, so that a cancellation made
    /// as soon as a waiter has the outcome never reaches the work's handlers.
    @inlinable
    static func end<Value>(
        _ run: Run?, with outcome: Result<Value, Error>, handingTo deliver: (Result<Value, Error>) -> Void
    ) {
        let reported = run?.reporting(outcome) ?? outcome
        run?.close()
        deliver(reported)
    }

    /// Registers `handler` to run once when the run is cancelled: at once when it already is,
    /// never after the run closed. It runs on the thread that cancels.
    @usableFromInline
    @discardableResult
    func onCancel(_ handler: @escaping @Sendable () -> Void) -> CancellationHandlers.Key? {
        guard let key = CancellationWord.addHandler(handler, to: word) else { return nil }
        linkUpward()
        // A run whose tree is cancelled is cancelled, so the handler runs at once, even before
        // the cancellation reaches the run through its links.
        if treeRoot != nil { _ = cancelIfTreeRootIsCancelled() }
        return key
    }

    @usableFromInline
    func removeHandler(_ key: CancellationHandlers.Key) {
        CancellationWord.removeHandler(key, from: word)
    }

    /// Closes the run once its work has reported: drops its handlers and its links upward.
    @usableFromInline
    func close() {
        guard let links = CancellationWord.close(word) else { return }
        removeLinks(links)
    }

    /// Makes the parent's and the task's cancellation cancel this run as it happens. Done
    /// once, when the run first gets a handler: before that, nobody needs to hear of it.
    ///
    /// Linking a run registers a handler on its parent, which links the parent in turn: a
    /// loop up the tree, not a recursion, since a million unlinked ancestors may be above.
    @usableFromInline
    func linkUpward() {
        var run = self
        while let parent = run.linkToParent() {
            run = parent
        }
    }

    /// Links this run to its parent and its task (see ``linkUpward()``); returns the parent
    /// when it is to be linked in turn.
    @usableFromInline
    func linkToParent() -> Run? {
        guard parent != nil || task != nil, let table = CancellationWord.existingTable(in: word),
            table.beginLinking()
        else { return nil }
        // The handlers hold this run until closing removes them.
        let onParent = parent.flatMap { parent in
            CancellationWord.addHandler({ self.cancel() }, to: parent.word)
        }
        let links = CancellationHandlers.Links(
            onParent: onParent,
            onTask: task?.addCancellationHandler { self.cancel() })
        if table.finishLinking(links) {
            CancellationWord.markLinked(word)
            return onParent == nil ? nil : parent
        }
        removeLinks(links)
        return nil
    }

    @usableFromInline
    func removeLinks(_ links: CancellationHandlers.Links) {
        if let key = links.onParent { parent?.removeHandler(key) }
        if let key = links.onTask { task?.removeCancellationHandler(key) }
    }

    /// Notes that the run's work has begun, where a waiter that parked for it cannot see: on
    /// a worker, a queue, or another thread that claimed it. Only the wait report reads it.
    @inlinable
    func noteStarted() {
        word.bitwiseOr(CancellationWord.startedBit, ordering: .relaxed)
    }

    /// Whether the run's work has begun elsewhere (see ``noteStarted()``).
    @usableFromInline
    var hasStarted: Bool {
        word.load(ordering: .relaxed) & CancellationWord.startedBit != 0
    }

    /// Whether the run can no longer hold anything up: its work reported its outcome, or it
    /// was cancelled, which releases its waiters.
    @usableFromInline
    var hasEnded: Bool {
        word.load(ordering: .acquiring) & CancellationWord.stateBits != 0
    }

    /// Notes the run whose outcome this run's work waits for while it holds no thread: a
    /// composed run listening to a future, or waiting for the outcome of a task its step
    /// started; `nil` once that outcome has come. The wait-for cycle check follows it.
    @usableFromInline
    func noteWaiting(for other: Run?) {
        CancellationWord.installedTable(in: word)?.noteWaiting(for: other)
    }

    /// The run this run's work waits for while it holds no thread (see ``noteWaiting(for:)``).
    @usableFromInline
    var waitingFor: Run? {
        CancellationWord.existingTable(in: word)?.waitingFor
    }

    /// Whether this run or one of its ancestors is `run`: the run of a future, whose work
    /// cannot end before a wait for it from here does.
    @inlinable
    func isRunning(_ run: Run) -> Bool {
        var current: Run? = self
        while let next = current {
            if next === run { return true }
            current = next.parent
        }
        return false
    }
}

extension Run: CustomReflectable {
    @usableFromInline
    var customMirror: Mirror { Mirror(self, children: ["isCancelled": isCancelled]) }
}

/// What a task's copies share: cancellation for good (``ThrowableTask/cancel()``). Every run
/// of the task is cancelled with it.
@usableFromInline
protocol CancellationSource: AnyObject, Sendable {
    var isCancelled: Bool { get }
    func addCancellationHandler(_ handler: @escaping @Sendable () -> Void) -> CancellationHandlers.Key?
    func removeCancellationHandler(_ key: CancellationHandlers.Key)
}
