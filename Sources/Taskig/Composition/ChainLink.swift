import Dispatch
import Synchronization

/// One step of a composed task, linked to the step it continues.
///
/// A composed task is a chain of links ending in the task it started from. Chains are built
/// by appending, run by a loop (``ChainRun``) and released by a loop (`deinit`), so a chain
/// of any length needs no deeper stack than a chain of one.
///
/// Values travel between steps as `Any`, since each step may change the type; the typed
/// operators box and unbox them.
///
/// Synchronization: a link never changes once made, except that `deinit` takes the upstream
/// reference out of links nobody else holds, to release the chain without recursing. A
/// stored `let` cannot be given up early, so that one reference sits in an `Atomic`, as an
/// `Unmanaged` this link retains once in `init` and releases once in `deinit`; everything
/// else is immutable and `Sendable`.
@usableFromInline
final class ChainLink: Sendable {
    @usableFromInline
    enum Operation: Sendable {
        /// The task the chain starts from.
        case start(AwaitedWork)
        /// A continuation, run on `queue`.
        case step(
            queue: DispatchQueue,
            kind: QueueAffinity.Kind,
            transform: @Sendable (Result<Any, Error>) -> StepOutcome
        )
    }

    /// The link this one continues, retained by this link until `deinit`.
    @usableFromInline
    let retainedUpstream: Atomic<Unmanaged<ChainLink>?>
    @usableFromInline
    let operation: Operation

    @inlinable
    init(upstream: ChainLink?, operation: Operation) {
        self.retainedUpstream = Atomic(upstream.map { Unmanaged.passRetained($0) })
        self.operation = operation
    }

    /// The link this one continues. Only `deinit` clears it, once no one else holds this
    /// link, so whoever reads it here holds a reference that keeps it alive.
    @inlinable
    var upstream: ChainLink? {
        retainedUpstream.load(ordering: .relaxed)?.takeUnretainedValue()
    }

    deinit {
        // Unlink the chain front to back; each link that nobody else holds is freed with no
        // upstream left, so freeing never recurses. Being the only holder of a link is what
        // makes taking its upstream safe: no one else can read it any more.
        var next = takeUpstream()
        while var link = next {
            next = nil
            guard isKnownUniquelyReferenced(&link) else { return }
            next = link.takeUpstream()
        }
    }

    /// Gives up this link's reference to its upstream, handing it to the caller.
    private func takeUpstream() -> ChainLink? {
        retainedUpstream.exchange(nil, ordering: .relaxed)?.takeRetainedValue()
    }

    /// The links from the first task to this one, in running order.
    @inlinable
    var linksFromStart: [ChainLink] {
        var links: [ChainLink] = []
        var link: ChainLink? = self
        while let current = link {
            links.append(current)
            link = current.upstream
        }
        links.reverse()
        return links
    }
}

/// What a continuation did with the outcome it was given.
@usableFromInline
enum StepOutcome {
    /// A new outcome, ready now.
    case finished(Result<Any, Error>)
    /// A task whose outcome becomes the new outcome once it finishes.
    case awaiting(AwaitedWork)
}

/// A task a chain waits for without blocking: how to start one run, and how to cancel it.
@usableFromInline
struct AwaitedWork: Sendable {
    @usableFromInline
    let start: @Sendable (_ done: @escaping @Sendable (Result<Any, Error>) -> Void) -> Void
    @usableFromInline
    let cancel: @Sendable () -> Void

    @inlinable
    init(
        start: @escaping @Sendable (_ done: @escaping @Sendable (Result<Any, Error>) -> Void) -> Void,
        cancel: @escaping @Sendable () -> Void
    ) {
        self.start = start
        self.cancel = cancel
    }

    /// One run of `task`, started where its queue says, reporting through `done`.
    @inlinable
    static func run<Work: ThrowableTaskType>(of task: Work) -> AwaitedWork {
        // Neither the task nor its conformance need be `Sendable`, but a task's contract lets
        // Taskig run and cancel it from any thread, and that is all these closures do with it.
        nonisolated(unsafe) let start = { (done: @escaping @Sendable (Result<Any, Error>) -> Void) in
            let cell = TaskRun.cell(for: task)
            cell.whenComplete { result in done(result.map { $0 as Any }) }
            cell.launch(RunPlacement.forTask(task, on: task.executionQueue, release: .never))
        }
        nonisolated(unsafe) let cancel = { (task as? CancellableTaskType)?.cancel() }
        return AwaitedWork(start: { done in start(done) }, cancel: { cancel() })
    }
}

/// A task that is a chain of continuations.
@usableFromInline
protocol ChainLinkCarrier {
    var chainLink: ChainLink? { get }
}
