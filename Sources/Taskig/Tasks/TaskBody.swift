import Dispatch
import Synchronization

/// What a ``ThrowableTask`` is made of, shared by all its copies: its work, the queue it runs
/// on, and its cancellation for good.
///
/// Copying a task copies one reference to its body, so copies share ``cancel()``. The work
/// is kept in the form it was given: a value-returning closure stays a closure, so that a run
/// in place is a plain call. A composed task's body is the last step of a chain whose steps
/// point at the body they continue (see ``ChainRun``).
///
/// A composed body holds the body it continues through `upstream`, released through
/// ``ChainRelease``, so that releasing a chain of any length is a loop, not a recursion.
@usableFromInline
final class TaskBody<Value>: AnyTaskBody {
    @usableFromInline
    let word = Atomic<UInt>(0)
    /// The queue given when the task was made; `nil` for the default global queue, so that
    /// copying many tasks does not make every core count references to one queue object.
    @usableFromInline
    let queue: DispatchQueue?
    @usableFromInline
    let work: Work
    // The small fields come right after `work`, in the padding its case tag leaves, so that
    // the body stays within 120 bytes: glibc keeps freed blocks that small in its fast bins,
    // which hand them out again without sorting or merging them.
    @usableFromInline
    let queueKind: QueueAffinity.Kind
    /// What is asked of the body on every run, worked out once when it is made: asking the
    /// enum `work` copies it.
    @usableFromInline
    let traits: TaskBodyTraits
    /// How many steps lead to this body: zero for a task made from its work. In 32 bits, next
    /// to the other small fields, which then share one word.
    @usableFromInline
    let storedChainLength: UInt32
    /// The closure of work that is a plain call (see ``Work/plainCall``); one that is never
    /// called otherwise. Kept apart from `work`, and not optional, so that calling it copies
    /// nothing: matching an enum case, or unwrapping an optional closure, copies the closure.
    @usableFromInline
    let plainCall: @Sendable () throws -> Value
    /// For a composed body, its last step (see ``ChainStep``); ``ChainStep/none`` otherwise.
    /// Not optional: an optional closure is kept in the form generic code calls, and unwrapping
    /// it to call it makes a converting closure every time.
    @usableFromInline
    let step: ChainStep.Apply
    /// For a composed body, the body it continues, retained once and released by `deinit`.
    /// A link rather than a reference, so that a chain's walk reads it, for every body,
    /// without counting a reference.
    @usableFromInline
    let upstream: ChainRun.Link?
    /// The size and alignment of the largest outcome of this body and those it continues.
    @usableFromInline
    let largestOutcome: OutcomeLayout

    /// The work in the form it was given.
    @usableFromInline
    enum Work: Sendable {
        /// A closure that returns the value or throws: ``TaskBody/plainCall``.
        case plainCall
        /// A closure that reports the outcome through a callback.
        case reporting(@Sendable (@escaping @Sendable (Result<Value, Error>) -> Void) -> Void)
        /// Work that starts runs of other things: an `async` body, a task of another type, a
        /// timeout, a retry.
        case source(any SourceWork<Value>)
        /// Waiting for a future's outcome, which never blocks. Only the outcome and the run,
        /// not the whole ``FutureState``: every body is as large as this enum's largest case.
        case listening(ListenedFuture<Value>)
        /// A composed task: the chain of steps ending in ``TaskBody/step``. For a body that
        /// continues a body that is not composed, what starts that body as the beginning of
        /// the chain (see ``ChainStep/StartSource``), in code specialized for its type;
        /// ``ChainStep/noSource`` otherwise. It is used once per run of the chain, so it is kept
        /// here, where matching the case copies it, rather than in a field of every body.
        case composed(ChainStep.StartSource)
    }

    @inlinable
    convenience init(queue: DispatchQueue?, queueKind: QueueAffinity.Kind, work: Work) {
        self.init(queue: queue, queueKind: queueKind, work: work) {
            preconditionFailure("BUG IN TASKIG: called the work of a task that is not a plain call")
        }
    }

    /// A body whose work is `plainCall`.
    @inlinable
    convenience init(
        queue: DispatchQueue?, queueKind: QueueAffinity.Kind, plainCall: @escaping @Sendable () throws -> Value
    ) {
        self.init(queue: queue, queueKind: queueKind, work: .plainCall, plainCall: plainCall)
    }

    @inlinable
    init(
        queue: DispatchQueue?, queueKind: QueueAffinity.Kind, work: Work,
        plainCall: @escaping @Sendable () throws -> Value
    ) {
        self.queue = queue
        self.queueKind = queueKind
        self.work = work
        self.plainCall = plainCall
        step = ChainStep.none
        upstream = nil
        storedChainLength = 0
        switch work {
        case .plainCall: traits = .isPlainCall
        case .listening: traits = .startsByListening
        case .reporting, .source, .composed: traits = []
        }
        largestOutcome = OutcomeLayout(of: Value.self)
    }

    /// A composed body: `step` applied to the outcome of `upstream`, on `queue` (`nil`: the
    /// default global queue); `runsOnFailure` when the step runs on a failure too.
    @inlinable
    init<Input>(
        continuing upstream: TaskBody<Input>, with step: @escaping ChainStep.Apply, runsOnFailure: Bool,
        on queue: DispatchQueue?
    ) {
        self.queue = queue
        queueKind = queue.map { QueueAffinity.kind(of: $0) } ?? .defaultGlobal
        if upstream.chainLength > 0 {
            work = .composed(ChainStep.noSource)
        } else {
            work = .composed({ source, chain, output in
                unsafeDowncast(source, to: TaskBody<Input>.self).start(asSourceOf: chain, output: output)
            })
        }
        plainCall = { preconditionFailure("BUG IN TASKIG: called the work of a composed task as a plain call") }
        self.step = step
        self.upstream = ChainRun.Link(retaining: upstream)
        storedChainLength = upstream.storedChainLength + 1
        // A chain starts as its first body does, and has a step for failures when any is one.
        // Constants and a branch: an array literal of traits, even `[]`, costs instructions on
        // every link made (row 7c, `map-chain`).
        let kept = upstream.traits.intersection(.keptByTheNextStep)
        traits = runsOnFailure ? kept.union(.hasStepForFailures) : kept
        largestOutcome = upstream.largestOutcome.union(OutcomeLayout(of: Value.self))
    }

    /// A body whose work runs on `queue`, whose kind is worked out here.
    @inlinable
    convenience init(queue: DispatchQueue, work: Work) {
        self.init(queue: queue, queueKind: QueueAffinity.kind(of: queue), work: work)
    }

    /// A body on the default global queue, whose kind is known without asking the queue.
    @inlinable
    convenience init(onDefaultQueue work: Work) {
        self.init(queue: nil, queueKind: .defaultGlobal, work: work)
    }

    /// A body whose work is a plain call of `plainCall`, on `queue`.
    @inlinable
    convenience init(queue: DispatchQueue, plainCall: @escaping @Sendable () throws -> Value) {
        self.init(queue: queue, queueKind: QueueAffinity.kind(of: queue), plainCall: plainCall)
    }

    /// A body whose work is a plain call of `plainCall`, on the default global queue.
    @inlinable
    convenience init(onDefaultQueue plainCall: @escaping @Sendable () throws -> Value) {
        self.init(queue: nil, queueKind: .defaultGlobal, plainCall: plainCall)
    }

    deinit {
        CancellationWord.destroy(word)
        if let upstream { ChainRelease.release(upstream.object) }
    }

    /// How many steps lead to this body: zero for a task made from its work.
    @inlinable
    var chainLength: Int { Int(storedChainLength) }

    /// Whether the work is a value-returning closure: a run in place is then a plain call.
    @inlinable
    var isPlainCall: Bool { traits.contains(.isPlainCall) }

    /// Whether a run of this body only registers a callback when it starts: it waits for a
    /// future, or is a chain that begins by waiting for one.
    @inlinable
    var startsByListening: Bool { traits.contains(.startsByListening) }

    /// Whether a step of the chain ending here runs on a failure, as a cancellation of its
    /// run is (see ``ChainRun/listen(to:output:)``).
    @inlinable
    var hasStepForFailures: Bool { traits.contains(.hasStepForFailures) }

    @inlinable
    var executionQueue: DispatchQueue { queue ?? QueueAffinity.defaultGlobalQueue }

    /// The queue the work runs on, with its kind.
    @inlinable
    var workQueue: WorkQueue { WorkQueue(queue, kind: queueKind) }

    /// Whether the task has been cancelled for good.
    @inlinable
    var isCancelled: Bool { CancellationWord.isCancelled(word) }

    /// Cancels the task for good: its runs hear it through their links, and the collections
    /// in progress, whose lanes may run it without a run of its own, through
    /// ``TaskCancellationListeners``.
    @usableFromInline
    func cancel() {
        if CancellationWord.cancel(word) { TaskCancellationListeners.taskWasCancelledForGood() }
    }

    @usableFromInline
    func addCancellationHandler(_ handler: @escaping @Sendable () -> Void) -> CancellationHandlers.Key? {
        CancellationWord.addHandler(handler, to: word)
    }

    @usableFromInline
    func removeCancellationHandler(_ key: CancellationHandlers.Key) {
        CancellationWord.removeHandler(key, from: word)
    }

    /// Calls the work's closure on this thread; only when ``isPlainCall``.
    @inlinable
    func callInPlace() -> Result<Value, Error> {
        Result(catching: plainCall)
    }

    /// Starts this body's work, which is not a step, as the beginning of `chain`: it listens
    /// to its future, or starts a child run of the chain's run. Its outcome goes to `output`;
    /// see ``ChainStep/StartSource``.
    @inlinable
    func start(asSourceOf chain: ChainRun, output: UnsafeMutableRawPointer) -> Bool {
        if case .listening(let future) = work { return chain.listen(to: future, output: output) }
        return chain.startChild(ThrowableTask(body: self), position: 0, output: output)
    }

    /// `body`, which is a body of this type, used as a guaranteed reference.
    @inlinable
    @inline(__always)
    static func using<Result>(_ body: Unmanaged<AnyObject>, _ use: (TaskBody) -> Result) -> Result {
        body._withUnsafeGuaranteedRef { use(unsafeDowncast($0, to: TaskBody.self)) }
    }

    @usableFromInline
    static func startUpstream(
        of body: Unmanaged<AnyObject>, in chain: ChainRun, output: UnsafeMutableRawPointer
    )
        -> Bool
    {
        using(body) { body in
            guard case .composed(let startSource) = body.work, let upstream = body.upstream else {
                preconditionFailure("BUG IN TASKIG: started the upstream of a body that is not composed")
            }
            return upstream.object._withUnsafeGuaranteedRef { startSource($0, chain, output) }
        }
    }

    @usableFromInline
    static func walkStep(of body: Unmanaged<AnyObject>) -> (queueKind: QueueAffinity.Kind, upstream: ChainRun.Link?) {
        using(body) { body in (body.queueKind, body.upstream) }
    }

    @usableFromInline
    static func applyStep(
        of body: Unmanaged<AnyObject>, _ inputSlot: UnsafeMutableRawPointer, _ outputSlot: UnsafeMutableRawPointer,
        _ chain: ChainRun, _ position: Int
    ) -> Bool {
        using(body) { body in body.step(inputSlot, outputSlot, chain, position) }
    }

    @usableFromInline
    static func queueOfStep(of body: Unmanaged<AnyObject>) -> DispatchQueue {
        using(body) { body in body.executionQueue }
    }

    @usableFromInline
    static func replaceWithCancellation(_ slot: UnsafeMutableRawPointer) {
        slot.assumingMemoryBound(to: Result<Value, Error>.self).pointee = .failure(
            CancellableTaskError.taskWasCancelled)
    }

    /// Starts the work on this thread, with the run current; the work reports through
    /// `completion` exactly once, from any thread, possibly before this returns. Callback
    /// work gets `completion` watched, so that dropping it fails the run (see
    /// ``WatchedHandler``).
    @inlinable
    func start(reportingTo completion: @escaping @Sendable (Result<Value, Error>) -> Void) {
        switch work {
        case .plainCall: completion(callInPlace())
        case .reporting(let start): start(WatchedHandler.watching(completion, of: ThrowableTask(body: self)))
        case .source(let source): source.start(reportingTo: completion)
        case .listening(let future): future.cell.whenComplete(completion)
        case .composed: ChainRun.start(self, reportingTo: completion)
        }
    }
}

extension TaskBody: CustomReflectable {
    /// The queue only: the work is closures, and the rest is raw cancellation state.
    @usableFromInline
    var customMirror: Mirror { Mirror(self, children: ["queue": executionQueue.label]) }
}

/// What a chain's run needs from a task body whatever its value type, asked of the type with
/// the body as an unretained reference (see ``ChainRun/Link``): a call through an unowned
/// existential would count a reference to the body every time.
@usableFromInline
protocol AnyTaskBody: CancellationSource {
    /// The kind of the body's queue and the body it continues, in one call.
    static func walkStep(of body: Unmanaged<AnyObject>) -> (queueKind: QueueAffinity.Kind, upstream: ChainRun.Link?)
    /// Starts the chain's first body, this composed body's upstream; see
    /// ``ChainStep/StartSource``.
    static func startUpstream(
        of body: Unmanaged<AnyObject>, in chain: ChainRun, output: UnsafeMutableRawPointer
    )
        -> Bool
    /// Applies the body's step; see ``ChainStep/Apply``.
    static func applyStep(
        of body: Unmanaged<AnyObject>, _ inputSlot: UnsafeMutableRawPointer, _ outputSlot: UnsafeMutableRawPointer,
        _ chain: ChainRun, _ position: Int
    ) -> Bool
    /// The queue the body's step runs on.
    static func queueOfStep(of body: Unmanaged<AnyObject>) -> DispatchQueue
    /// Replaces the outcome of a body of this type in `slot` with the cancellation.
    static func replaceWithCancellation(_ slot: UnsafeMutableRawPointer)
}

/// Work that starts runs of other things and reports their outcome: see ``TaskBody/Work/source(_:)``.
///
/// Only classes conform: a reference keeps the source case of ``TaskBody/Work`` as small as
/// its other cases, and so every task body smaller.
@usableFromInline
protocol SourceWork<Value>: AnyObject, Sendable {
    associatedtype Value
    /// Starts the work with its run current; reports exactly once, from any thread.
    func start(reportingTo completion: @escaping @Sendable (Result<Value, Error>) -> Void)
}
