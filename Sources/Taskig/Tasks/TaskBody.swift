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
/// A composed body holds the body it continues through `retainedUpstream`, released through
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
    let queueKind: QueueAffinity.Kind
    @usableFromInline
    let work: Work
    /// For a composed body, its last step.
    @usableFromInline
    let step: ChainStep?
    /// For a composed body: the body it continues, retained once, as the bits of an
    /// `Unmanaged` reference; zero otherwise.
    @usableFromInline
    let retainedUpstream: UInt

    /// The work in the form it was given.
    @usableFromInline
    enum Work: Sendable {
        /// A closure that returns the value or throws.
        case returning(@Sendable () throws -> Value)
        /// A closure that reports the outcome through a callback.
        case reporting(@Sendable (@escaping @Sendable (Result<Value, Error>) -> Void) -> Void)
        /// Work that starts runs of other things: an `async` body, a task of another type, a
        /// timeout, a retry.
        case source(any SourceWork<Value>)
        /// A composed task: the chain of steps ending in ``TaskBody/step``.
        case composed
    }

    @inlinable
    init(queue: DispatchQueue?, queueKind: QueueAffinity.Kind, work: Work, step: ChainStep? = nil) {
        self.queue = queue
        self.queueKind = queueKind
        self.work = work
        self.step = step
        if let step {
            retainedUpstream = UInt(bitPattern: Unmanaged.passRetained(step.upstream as AnyObject).toOpaque())
        } else {
            retainedUpstream = 0
        }
    }

    /// A body whose work runs on `queue`, whose kind is worked out here.
    @inlinable
    convenience init(queue: DispatchQueue, work: Work) {
        self.init(queue: queue, queueKind: QueueAffinity.kind(of: queue), work: work)
    }

    /// A body on the default global queue, whose kind is known without asking the queue.
    @inlinable
    convenience init(onDefaultQueue work: Work) {
        self.init(queue: nil, queueKind: .globalConcurrent, work: work)
    }

    /// A composed body whose last step is `step`, run on `queue` (`nil`: the default global
    /// queue).
    @inlinable
    convenience init(composedOf step: ChainStep, on queue: DispatchQueue?) {
        guard let queue else {
            self.init(queue: nil, queueKind: .globalConcurrent, work: .composed, step: step)
            return
        }
        self.init(queue: queue, queueKind: QueueAffinity.kind(of: queue), work: .composed, step: step)
    }

    deinit {
        CancellationWord.destroy(word)
        if let address = UnsafeRawPointer(bitPattern: retainedUpstream) {
            ChainRelease.release(Unmanaged<AnyObject>.fromOpaque(address))
        }
    }

    @inlinable
    var executionQueue: DispatchQueue { queue ?? QueueAffinity.defaultGlobalQueue }

    /// Whether the task has been cancelled for good.
    @inlinable
    var isCancelled: Bool { CancellationWord.isCancelled(word) }

    @usableFromInline
    func cancel() {
        CancellationWord.cancel(word)
    }

    @usableFromInline
    func addCancellationHandler(_ handler: @escaping @Sendable () -> Void) -> CancellationHandlers.Key? {
        CancellationWord.addHandler(handler, to: word)
    }

    @usableFromInline
    func removeCancellationHandler(_ key: CancellationHandlers.Key) {
        CancellationWord.removeHandler(key, from: word)
    }

    /// Starts this body's work, which is not a step, as the beginning of `chain`: a child run
    /// of the chain's run, whose outcome goes to `output`.
    @usableFromInline
    func startAsChainSource(in chain: ChainRun, output: UnsafeMutableRawPointer) -> Bool {
        chain.startChild(ThrowableTask(body: self), position: 0, output: output)
    }

    /// Applies this body's step; see ``ChainStep/Apply``.
    @usableFromInline
    func applyStep(
        _ inputSlot: UnsafeMutableRawPointer, _ outputSlot: UnsafeMutableRawPointer, _ chain: ChainRun,
        _ position: Int
    ) -> Bool {
        step!.apply(inputSlot, outputSlot, chain, position)
    }

    /// Whether this body's work only waits for a future, which never blocks.
    @usableFromInline
    var sourceOnlyListens: Bool {
        guard case .source(let source) = work else { return false }
        return source.onlyListens
    }

    /// Whether a run of this body, a composed task's included, only registers a callback
    /// when it starts: its first work is waiting for a future.
    @inlinable
    var onlyListens: Bool {
        var body: any AnyTaskBody = self
        while let step = body.step { body = step.upstream }
        return body.sourceOnlyListens
    }

    /// Starts the work on this thread, with the run current; the work reports through
    /// `completion` exactly once, from any thread, possibly before this returns.
    @inlinable
    func start(reportingTo completion: @escaping @Sendable (Result<Value, Error>) -> Void) {
        switch work {
        case .returning(let produce): completion(Result(catching: produce))
        case .reporting(let start): start(completion)
        case .source(let source): source.start(reportingTo: completion)
        case .composed: ChainRun.start(self, reportingTo: completion)
        }
    }
}

extension TaskBody: CustomReflectable {
    /// The queue only: the work is closures, and the rest is raw cancellation state.
    @usableFromInline
    var customMirror: Mirror { Mirror(self, children: ["queue": executionQueue.label]) }
}

/// A task body whatever its value type: enough to walk and release chains.
@usableFromInline
protocol AnyTaskBody: CancellationSource {
    var queue: DispatchQueue? { get }
    var queueKind: QueueAffinity.Kind { get }
    var step: ChainStep? { get }
    var sourceOnlyListens: Bool { get }
    func startAsChainSource(in chain: ChainRun, output: UnsafeMutableRawPointer) -> Bool
    func applyStep(
        _ inputSlot: UnsafeMutableRawPointer, _ outputSlot: UnsafeMutableRawPointer, _ chain: ChainRun,
        _ position: Int
    ) -> Bool
}

/// Work that starts runs of other things and reports their outcome: see ``TaskBody/Work/source(_:)``.
@usableFromInline
protocol SourceWork<Value>: Sendable {
    associatedtype Value
    /// Whether the work only waits for a future: starting it never blocks.
    var onlyListens: Bool { get }
    /// Starts the work with its run current; reports exactly once, from any thread.
    func start(reportingTo completion: @escaping @Sendable (Result<Value, Error>) -> Void)
}

extension SourceWork {
    @inlinable
    var onlyListens: Bool { false }
}
