import Dispatch

/// One run of a chain: a loop that applies each link to the outcome so far.
///
/// A step that finishes at once is followed by the next in the same loop. A step that has to
/// wait (a task returned by `flatMap`, a hop to a serial queue) ends the loop, and whatever
/// finishes the wait starts the loop again, on its own stack. A wait that finishes before
/// its start call returns is noticed, and the loop simply goes on, so a chain of tasks that
/// all finish at once never nests calls either.
///
/// Synchronization: the loop's progress (the next link and the outcome so far) lives in local
/// variables of ``drive(from:with:onStepQueue:)``. When the loop ends to wait, the progress is
/// handed to whatever starts it again: the index is captured by the completion or the queue
/// block, and an outcome that has to travel with it goes through `waiting`, which is locked.
/// Everything stored here is immutable and `Sendable`, so a step that finishes at once costs
/// no lock.
@usableFromInline
final class ChainRun: Sendable {
    @usableFromInline
    enum WaitPhase {
        /// The loop is running, or the chain has finished.
        case idle
        /// The awaited task's start call has not returned yet.
        case startingWork
        /// The awaited task finished before its start call returned; the loop goes on with
        /// this outcome.
        case finishedWhileStarting(Result<Any, Error>)
        /// The loop has ended; the awaited task's completion starts it again.
        case waiting
        /// The loop has ended to continue on a step's queue; the block sent there takes this
        /// outcome.
        case hopping(Result<Any, Error>)
    }

    /// The task the loop is waiting for, and how far its start has got.
    @usableFromInline
    struct Waiting {
        @usableFromInline
        var phase = WaitPhase.idle
        @usableFromInline
        var cancelAwaited: (@Sendable () -> Void)?

        @inlinable
        init() {}

        /// The outcome a queue hop carried, once the hop has arrived.
        @inlinable
        mutating func takeHoppedOutcome() -> Result<Any, Error> {
            guard case .hopping(let outcome) = phase else {
                preconditionFailure("BUG IN TASKIG: a chain resumed on a step's queue without its outcome")
            }
            phase = .idle
            return outcome
        }
    }

    @usableFromInline
    let links: [ChainLink]
    @usableFromInline
    let identity: ObjectIdentifier
    @usableFromInline
    let waiting: LockedState<Waiting>
    @usableFromInline
    let token: CancellationToken
    @usableFromInline
    let cancellationHandler: CancellationToken.HandlerID?
    @usableFromInline
    let finish: @Sendable (Result<Any, Error>) -> Void

    /// A run of the chain ending in `tail`, which from now on cancels the task it waits for
    /// when `token` is cancelled.
    @inlinable
    init(tail: ChainLink, token: CancellationToken, finish: @escaping @Sendable (Result<Any, Error>) -> Void) {
        self.links = tail.linksFromStart
        self.identity = ObjectIdentifier(tail)
        self.token = token
        self.finish = finish
        let waiting = LockedState(Waiting())
        self.waiting = waiting
        self.cancellationHandler = token.onCancel { waiting.withLock { $0.cancelAwaited }?() }
    }

    /// Runs the chain; `finish` gets its outcome.
    @inlinable
    func start() {
        // The first link is the task the chain starts from, which replaces this outcome.
        drive(from: 0, with: .failure(CancellableTaskError.taskWasCancelled))
    }

    /// Runs links from `index` on, starting from `outcome`, until the chain ends or a step
    /// has to wait.
    @inlinable
    func drive(from index: Int, with outcome: Result<Any, Error>, onStepQueue: Bool = false) {
        var index = index
        var current = outcome
        var onQueue = onStepQueue
        while index < links.count {
            let link = links[index]
            switch link.operation {
            case .start(let work):
                index += 1
                guard let finished = startAndCheck(work, resumingAt: index) else { return }
                current = finished
            case .step(let queue, let kind, let transform):
                if !onQueue && kind != .globalConcurrent && !QueueAffinity.isCurrent(queue, kind: kind) {
                    hop(to: queue, resumingAt: index, with: current)
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
                    guard let finished = startAndCheck(work, resumingAt: index) else { return }
                    current = finished
                }
            }
        }
        if let cancellationHandler { token.removeHandler(cancellationHandler) }
        finish(current)
    }

    /// Continues with the link at `index` on `queue`. The outcome is not `Sendable`, so it
    /// cannot be captured by the block; it travels in `waiting` instead, and the block takes
    /// it out under the lock.
    @inlinable
    func hop(to queue: DispatchQueue, resumingAt index: Int, with outcome: Result<Any, Error>) {
        waiting.withLock { $0.phase = .hopping(outcome) }
        queue.async { [self] in
            drive(from: index, with: waiting.withLock { $0.takeHoppedOutcome() }, onStepQueue: true)
        }
    }

    /// Starts `work`. Returns its outcome when it already finished, so that the loop goes on;
    /// `nil` when it will start the loop again at `index` itself later.
    @inlinable
    func startAndCheck(_ work: AwaitedWork, resumingAt index: Int) -> Result<Any, Error>? {
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
            if resumesLoop { drive(from: index, with: result) }
        }
        return waiting.withLock { state in
            guard case .finishedWhileStarting(let result) = state.phase else {
                state.phase = .waiting
                return nil
            }
            state.phase = .idle
            state.cancelAwaited = nil
            return result
        }
    }
}
