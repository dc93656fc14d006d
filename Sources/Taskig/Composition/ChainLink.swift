import Dispatch

/// One step of a composed task, linked to the step it continues.
///
/// A composed task is a chain of links ending in the task it started from. Chains are built
/// by appending, run by a loop (``ChainRun``) and released by a loop (`deinit`), so a chain
/// of any length needs no deeper stack than a chain of one.
///
/// Values travel between steps as `Any`, since each step may change the type; the typed
/// operators box and unbox them.
///
/// `@unchecked Sendable` is safe here: a link is immutable once made, except `upstream`,
/// which only `deinit` clears, when no other reference to the link exists.
@usableFromInline
final class ChainLink: @unchecked Sendable {
    @usableFromInline
    enum Operation {
        /// The task the chain starts from.
        case start(AwaitedWork)
        /// A continuation, run on `queue`.
        case step(queue: DispatchQueue, kind: QueueAffinity.Kind, transform: (Result<Any, Error>) -> StepOutcome)
    }

    @usableFromInline
    var upstream: ChainLink?
    @usableFromInline
    let operation: Operation

    @inlinable
    init(upstream: ChainLink?, operation: Operation) {
        self.upstream = upstream
        self.operation = operation
    }

    deinit {
        // Unlink the chain front to back; each link that nobody else holds is freed with no
        // upstream left, so freeing never recurses.
        var next = upstream
        upstream = nil
        while var link = next {
            next = nil
            guard isKnownUniquelyReferenced(&link) else { return }
            next = link.upstream
            link.upstream = nil
        }
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
struct AwaitedWork {
    @usableFromInline
    let start: (_ done: @escaping @Sendable (Result<Any, Error>) -> Void) -> Void
    @usableFromInline
    let cancel: () -> Void

    @inlinable
    init(
        start: @escaping (_ done: @escaping @Sendable (Result<Any, Error>) -> Void) -> Void,
        cancel: @escaping () -> Void
    ) {
        self.start = start
        self.cancel = cancel
    }

    /// One run of `task`, started where its queue says, reporting through `done`.
    @inlinable
    static func run<Work: ThrowableTaskType>(of task: Work) -> AwaitedWork {
        AwaitedWork(
            start: { done in
                let cell = TaskRun.cell(for: task)
                cell.whenComplete { result in done(result.map { $0 as Any }) }
                cell.launch(RunPlacement.forTask(task, on: task.executionQueue, release: .never))
            },
            cancel: { (task as? CancellableTaskType)?.cancel() }
        )
    }
}

/// A task that is a chain of continuations.
@usableFromInline
protocol ChainLinkCarrier {
    var chainLink: ChainLink? { get }
}
