import Dispatch

/// One run of a chain: a loop that applies each link to the outcome so far.
///
/// A step that finishes at once is followed by the next in the same loop. A step that has to
/// wait (a task returned by `flatMap`, a hop to a serial queue) ends the loop, and whatever
/// finishes the wait starts the loop again, on its own stack. A wait that finishes before
/// its start call returns is noticed, and the loop simply goes on, so a chain of tasks that
/// all finish at once never nests calls either.
///
/// `@unchecked Sendable` is safe here: `index` and `current` are only touched by the one
/// thread running the loop at a time; the hand-over between threads goes through `waiting`,
/// which is locked, or through a queue.
@usableFromInline
final class ChainRun: @unchecked Sendable {
    @usableFromInline
    enum WaitPhase {
        case idle
        case startingWork
        case finishedWhileStarting(Result<Any, Error>)
        case waiting
    }

    /// The task the loop is waiting for, and how far its start has got.
    @usableFromInline
    struct Waiting {
        @usableFromInline
        var phase = WaitPhase.idle
        @usableFromInline
        var cancelAwaited: (() -> Void)?

        @inlinable
        init() {}
    }

    @usableFromInline
    let links: [ChainLink]
    @usableFromInline
    let identity: ObjectIdentifier
    @usableFromInline
    var index = 0
    @usableFromInline
    var current: Result<Any, Error> = .failure(CancellableTaskError.taskWasCancelled)
    @usableFromInline
    let waiting = LockedState(Waiting())
    @usableFromInline
    let token: CancellationToken
    @usableFromInline
    var cancellationHandler: CancellationToken.HandlerID?
    @usableFromInline
    let finish: (Result<Any, Error>) -> Void

    @inlinable
    init(tail: ChainLink, token: CancellationToken, finish: @escaping (Result<Any, Error>) -> Void) {
        self.links = tail.linksFromStart
        self.identity = ObjectIdentifier(tail)
        self.token = token
        self.finish = finish
    }

    /// Runs the chain; `finish` gets its outcome.
    @inlinable
    func start() {
        cancellationHandler = token.onCancel { [self] in cancelAwaited() }
        drive()
    }

    @inlinable
    func drive(onStepQueue: Bool = false) {
        var onQueue = onStepQueue
        while index < links.count {
            let link = links[index]
            switch link.operation {
            case .start(let work):
                index += 1
                guard startAndCheck(work) else { return }
            case .step(let queue, let kind, let transform):
                if !onQueue && kind != .globalConcurrent && !QueueAffinity.isCurrent(queue, kind: kind) {
                    queue.async { self.drive(onStepQueue: true) }
                    return
                }
                onQueue = false
                index += 1
                let outcome = RunningWork.whileRunning(identity) {
                    RunningWork.whileRunning(ObjectIdentifier(link)) { transform(current) }
                }
                switch outcome {
                case .finished(let result):
                    current = result
                case .awaiting(let work):
                    guard startAndCheck(work) else { return }
                }
            }
        }
        if let cancellationHandler { token.removeHandler(cancellationHandler) }
        finish(current)
    }

    /// Starts `work`. Returns `true` when it already finished (and `current` holds its
    /// outcome), `false` when it will call ``drive(onStepQueue:)`` itself later.
    @inlinable
    func startAndCheck(_ work: AwaitedWork) -> Bool {
        waiting.withLock { state in
            state.phase = .startingWork
            state.cancelAwaited = work.cancel
        }
        work.start { [self] result in
            let resumesLoop = waiting.withLock { state -> Bool in
                guard case .waiting = state.phase else {
                    state.phase = .finishedWhileStarting(result)
                    return false
                }
                state.phase = .idle
                state.cancelAwaited = nil
                return true
            }
            if resumesLoop {
                current = result
                drive()
            }
        }
        let finished: Result<Any, Error>? = waiting.withLock { state in
            guard case .finishedWhileStarting(let result) = state.phase else {
                state.phase = .waiting
                return nil
            }
            state.phase = .idle
            state.cancelAwaited = nil
            return result
        }
        guard let finished else { return false }
        current = finished
        return true
    }

    /// Cancels the task the chain is waiting for, if any.
    @inlinable
    func cancelAwaited() {
        waiting.withLock { $0.cancelAwaited }?()
    }
}
