import Dispatch
import Synchronization

/// One run of a composed task: a loop that applies each step of the chain to the outcome so
/// far.
///
/// A chain is built by appending steps, each pointing at the body it continues. A run walks
/// it once from the last step back to the first and then loops forward, so a chain of any
/// length needs no deeper stack than a chain of one (releasing it is a loop too, see
/// ``TaskBody``).
///
/// Outcomes travel between steps through two slots of raw memory, sized for the largest
/// outcome in the chain: the outcome after position `p` is in slot `p % 2`. Position 0 starts
/// the task the chain begins with; position `p` applies the step of the `p`th body after it.
/// Each step knows the types it reads and writes, so no value is boxed or cast.
///
/// A step that finishes at once is followed by the next in the same loop. One that has to
/// wait (a task returned by `flatMap`, a hop to a serial queue) ends the loop, and whatever
/// finishes the wait starts it again at the next position, on its own stack. A wait that
/// finishes before its start call returns is noticed through `phase`, and the loop simply
/// goes on, so a chain of tasks that finish at once never nests calls.
///
/// The steps run as the work of the composed task's run, and the tasks they start are that
/// run's children: cancelling the composed run cancels them, and the steps after them see
/// ``CancellableTaskError/taskWasCancelled`` as an ordinary failure.
///
/// Synchronization: only one thread runs the loop at a time. A hand-off to the next thread
/// goes through `phase` (acquire and release) or a queue's `async`, which order the slot
/// writes before the reads; `links` and `slots` are never reallocated.
@usableFromInline
final class ChainRun: Sendable {
    /// Where the run is, as the thread that runs the loop and the arrival of a step's outcome
    /// agree on it: whichever of the two comes second goes on with the loop.
    ///
    /// An atomic rather than a lock, changed twice a step (a relaxed store and a
    /// compare-and-swap): the per-link cost of map-chain, row 7c.
    @usableFromInline
    enum Phase: UInt8, AtomicRepresentable, Sendable {
        /// The loop is running.
        case running
        /// A step started work whose outcome may arrive at any moment.
        case starting
        /// That outcome arrived before the start call returned; the loop goes on.
        case finishedWhileStarting
        /// The loop has ended; the outcome's arrival starts it again.
        case waiting
        /// The chain has finished, and freed its links and slots (see ``finishFreeingMemory()``).
        case finished
    }

    /// A body of a chain as an unmanaged reference and the type that uses it: calls through
    /// it count no reference, where a call through an unowned existential costs a retain and
    /// a release of the body. Held by the body that continues it, which retained it (see
    /// ``TaskBody``), and by a run, unretained: the run's `tail` keeps the whole chain alive.
    @usableFromInline
    struct Link: Sendable {
        /// Only ever a task body, which is `Sendable`.
        @usableFromInline
        nonisolated(unsafe) let object: Unmanaged<AnyObject>
        @usableFromInline
        let type: any AnyTaskBody.Type

        /// A link that holds `body` until ``ChainRelease`` releases `object`.
        @inlinable
        init<Value>(retaining body: TaskBody<Value>) {
            object = Unmanaged.passRetained(body)
            type = TaskBody<Value>.self
        }

        /// A link that does not hold `body`.
        @inlinable
        init<Value>(unretained body: TaskBody<Value>) {
            object = Unmanaged.passUnretained(body)
            type = TaskBody<Value>.self
        }
    }

    /// A body of the chain as its run keeps it, with the kind of its queue, which the walk
    /// reads in the same call as the body's upstream, so that the run's loop asks the body
    /// nothing to learn where its step runs.
    @usableFromInline
    struct RunLink {
        @usableFromInline
        let link: Link
        @usableFromInline
        let queueKind: QueueAffinity.Kind

        @inlinable
        init(_ link: Link, queueKind: QueueAffinity.Kind) {
            self.link = link
            self.queueKind = queueKind
        }
    }

    /// The composed task's run; `nil` for a run nothing can cancel.
    @usableFromInline
    let run: Run?
    @usableFromInline
    let tail: any AnyTaskBody
    /// The bodies of the chain, first to last: the task it begins with, then one per step.
    @usableFromInline
    nonisolated(unsafe) let links: UnsafeMutableBufferPointer<RunLink>
    @usableFromInline
    nonisolated(unsafe) let slots: UnsafeMutableRawPointer
    @usableFromInline
    let slotStride: Int
    @usableFromInline
    let slotAlignment: Int
    @usableFromInline
    let phase = Atomic(Phase.running)
    /// Set by whichever comes first when the chain listens to a future (see
    /// ``listen(to:output:)``): the future's outcome, or the cancellation of the chain's run.
    @usableFromInline
    let sourceClaimed = Atomic(false)
    /// Whether the chain hears of its run's cancellation as it happens while it listens to a
    /// future, through a handler on the run. A step that runs on a failure must run then. So
    /// must the chain's end, when its waiters wait for it; a started future's waiters wait for
    /// its cell, which every cancellation of its run completes (see
    /// ``Future/init(listeningRunOf:sharesCancellation:startedAt:)``), and steps that only
    /// skip a failure can wait for the future's outcome: they then skip the cancellation
    /// instead. The run then needs no handler table, unless the future it listens to has a run,
    /// which the wait-for cycle check notes there (row 10c, `future-fan-out`, listens to a promise).
    @usableFromInline
    let hearsCancellationAtOnce: Bool
    /// Takes the final outcome out of the slot it is given and hands it on. It gets the chain
    /// too, so that it can reach the run without capturing it: a closure that captures one
    /// reference needs no allocation.
    @usableFromInline
    let finish: Finish

    @usableFromInline
    typealias Finish = @Sendable (_ chain: ChainRun, _ outcome: UnsafeMutableRawPointer) -> Void

    /// - Parameter waitersWaitForTheCell: the run's waiters are released by a cell that every
    ///   cancellation of the run completes, not by the chain's end.
    @inlinable
    init<Value>(
        tail: TaskBody<Value>, run: Run?, waitersWaitForTheCell: Bool, finish: @escaping Finish
    ) {
        self.run = run
        self.tail = tail
        self.finish = finish
        hearsCancellationAtOnce = !waitersWaitForTheCell || tail.hasStepForFailures
        // One allocation for the links and, after them, the slots.
        let linkCount = tail.chainLength + 1
        let layout = tail.largestOutcome
        slotStride = layout.stride
        slotAlignment = layout.alignment
        let slotOffset =
            (linkCount * MemoryLayout<RunLink>.stride + layout.alignment - 1) / layout.alignment
            * layout.alignment
        let memory = UnsafeMutableRawPointer.allocate(
            byteCount: slotOffset + 2 * slotStride, alignment: max(layout.alignment, MemoryLayout<RunLink>.alignment))
        slots = memory + slotOffset
        let links = UnsafeMutableBufferPointer(
            start: memory.bindMemory(to: RunLink.self, capacity: linkCount), count: linkCount)
        // Unretained: `tail` holds the chain, and counting references on every link of a long
        // chain would cost more than the walk itself.
        var link = Link(unretained: tail)
        var position = tail.chainLength
        while true {
            let (queueKind, upstream) = link.type.walkStep(of: link.object)
            links.initializeElement(at: position, to: RunLink(link, queueKind: queueKind))
            guard position > 0, let upstream else { break }
            link = upstream
            position -= 1
        }
        self.links = links
    }

    deinit {
        // A chain whose loop ended for good before its last step: the task of its last step
        // took its place (see ``inlineChild(_:position:output:)``), or a step's work never
        // reported.
        if phase.load(ordering: .relaxed) != .finished { UnsafeMutableRawPointer(links.baseAddress!).deallocate() }
    }

    /// Runs the chain ending in `tail`, with the current run (see ``CurrentRun``) as the
    /// composed task's run; `completion` gets the last step's outcome.
    @inlinable
    static func start<Value>(
        _ tail: TaskBody<Value>,
        reportingTo completion: @escaping @Sendable (Result<Value, Error>) -> Void
    ) {
        start(tail) { _, outcome in completion(ChainSlot.take(outcome, as: Value.self)) }
    }

    /// Runs the chain ending in `tail`, with the current run as the composed task's run;
    /// `finish` gets the slot of the last step's outcome, a `Result<Value, Error>` to take
    /// (``ChainSlot/take(_:as:)``).
    ///
    /// A chain started while another chain's loop runs on this thread (a `flatMap`'s inner
    /// task, or a future a step's closure starts, as Bolts' recursive loops do) loops after
    /// that loop has ended, through ``CompletionDrain``, rather than inside it: a recursive
    /// loop, whose every level is a chain started from a step of the level before, then runs a
    /// million levels on the stack of one, however soon each level's work ends.
    @inlinable
    static func start<Value>(_ tail: TaskBody<Value>, finishing finish: @escaping Finish) {
        start(tail, run: CurrentRun.run, finishing: finish)
    }

    /// ``start(_:finishing:)`` with `run` as the composed task's run, for a caller that made
    /// it: the loop makes it current, so the caller need not. `waitersWaitForTheCell` when the
    /// run's waiters wait for a cell that every cancellation of the run completes (see
    /// ``hearsCancellationAtOnce``).
    @inlinable
    static func start<Value>(
        _ tail: TaskBody<Value>, run: Run?, waitersWaitForTheCell: Bool = false, finishing finish: @escaping Finish
    ) {
        let chain = ChainRun(tail: tail, run: run, waitersWaitForTheCell: waitersWaitForTheCell, finish: finish)
        if loopRunsHere.pointer != nil {
            CompletionDrain.runSoon { chain.drive(from: 0) }
        } else {
            chain.drive(from: 0)
        }
    }

    /// Per thread: set while a chain's loop runs here (see ``start(_:finishing:)``).
    @usableFromInline
    static let loopRunsHere = ThreadLocalSlot()

    /// The slot holding the outcome after `position`.
    @inlinable
    func slot(after position: Int) -> UnsafeMutableRawPointer {
        slots + (position & 1) * slotStride
    }

    /// Runs positions from `position` on, until the chain ends or a step has to wait.
    @inlinable
    func drive(from position: Int, onStepQueue: Bool = false) {
        let outerLoop = Self.loopRunsHere.pointer
        Self.loopRunsHere.pointer = UnsafeMutableRawPointer(bitPattern: 1)
        defer { Self.loopRunsHere.pointer = outerLoop }
        CurrentRun.whileRunning(run) {
            var position = position
            var onQueue = onStepQueue
            let caller = RunPlacement.Caller.current
            while position < links.count {
                let link = links[position].link
                phase.store(Phase.starting, ordering: .relaxed)
                if position == 0 {
                    let first = links[1].link
                    guard
                        first.type.startUpstream(of: first.object, in: self, output: slot(after: 0)) || goOnAfterStart()
                    else { return }
                } else {
                    if onQueue {
                        onQueue = false
                        // The run may have been cancelled while the step waited for its queue:
                        // the step then takes the cancellation as its input, so that `map` and
                        // `flatMap` skip it and the steps for failures see it.
                        if let run, run.isCancelled {
                            links[position - 1].link.type.replaceWithCancellation(slot(after: position - 1))
                        }
                    } else if case let hop = RunPlacement.of(
                        links[position].queueKind, queue: link.type.queueOfStep(of: link.object), wait: .untilDone,
                        caller: caller),
                        hop != .inPlace
                    {
                        phase.store(Phase.running, ordering: .relaxed)
                        let resumeAt = position
                        hop.send { self.drive(from: resumeAt, onStepQueue: true) }
                        return
                    }
                    guard
                        link.type.applyStep(
                            of: link.object, slot(after: position - 1), slot(after: position), self, position)
                            || goOnAfterStart()
                    else { return }
                }
                position += 1
            }
            finishFreeingMemory()
        }
    }

    /// Hands the final outcome on, moved out of its slot, once the links and slots are freed.
    ///
    /// Handing it on often lets the waiter free the chain's bodies at once. A block as large as
    /// a long chain's links, freed after them, makes glibc merge every small block freed before
    /// it (`malloc_consolidate`), and the next chain's bodies then come from merged memory
    /// instead of its fast bins, at a cost in instructions per link that row 10b shows.
    @inlinable
    func finishFreeingMemory() {
        withUnsafeTemporaryAllocation(byteCount: slotStride, alignment: slotAlignment) { outcome in
            outcome.baseAddress!.copyMemory(from: slot(after: links.count - 1), byteCount: slotStride)
            UnsafeMutableRawPointer(links.baseAddress!).deallocate()
            phase.store(.finished, ordering: .relaxed)
            finish(self, outcome.baseAddress!)
        }
    }

    /// After a start that did not finish at once: `true` when the outcome arrived meanwhile
    /// (the loop goes on), `false` when the loop must end and wait for it.
    @inlinable
    func goOnAfterStart() -> Bool {
        let (exchanged, _) = phase.compareExchange(
            expected: Phase.starting, desired: Phase.waiting, ordering: .acquiringAndReleasing)
        if exchanged { return false }
        phase.store(Phase.running, ordering: .relaxed)
        return true
    }

    /// Called once the outcome of the work started at `position` is in its slot.
    @inlinable
    func resume(at position: Int) {
        let (exchanged, _) = phase.compareExchange(
            expected: Phase.starting, desired: Phase.finishedWhileStarting, ordering: .acquiringAndReleasing)
        if exchanged { return }
        phase.store(Phase.running, ordering: .relaxed)
        // Steps never run on Taskig's timer queue, which must stay free for the other timers.
        Scheduling.leavingTimerQueue(deliver: position + 1) { self.drive(from: $0) }
    }

    /// Starts `task` as a child run of the chain's run; its outcome goes to `output`. Returns
    /// `true` when the outcome is already there, `false` when ``resume(at:)`` will be called,
    /// or when the task took this chain's place (see ``inlineChild(_:position:output:)``).
    @inlinable
    func startChild<Work: ThrowableTaskType>(
        _ task: consuming Work, position: Int, output: UnsafeMutableRawPointer
    ) -> Bool {
        let typedOutput = output.assumingMemoryBound(to: Result<Work.ResultType, Error>.self)
        // A task a step has just made, as a recursive loop's every level is, is usually its
        // last copy: nobody else can cancel it for good, so its run needs no link to it, and
        // under a run nothing can cancel, no run object at all.
        let isLastCopy = TaskKind<Work.ResultType>.isLastThrowableCopy(&task)
        if isLastCopy, inlineChild(task, position: position, output: typedOutput) { return false }
        let launched = RunLaunch.launch(task, parent: run, sharesCancellation: !isLastCopy)
        switch launched {
        case .finished(let outcome):
            typedOutput.initialize(to: outcome)
            return true
        case .pending(let cell, let child):
            // Meanwhile the chain's run waits for the child, holding no thread: the wait-for
            // cycle check follows it there (for a future, to the future's own run).
            let awaited = run == nil ? nil : RunLaunch.runningFutureRun(of: TaskKind.of(task)) ?? child
            if let awaited { run?.noteWaiting(for: awaited) }
            // The slot is written by the cell's one callback, before the loop resumes.
            nonisolated(unsafe) let slot = typedOutput
            cell.whenComplete { outcome in
                if awaited != nil { self.run?.noteWaiting(for: nil) }
                slot.initialize(to: outcome)
                self.resume(at: position)
            }
            return false
        }
    }

    /// Runs `task`, the last copy of a composed task that this chain's step at `position`
    /// made, as this chain's run, with no run, cell or callback of its own. Returns whether it
    /// did; its chain's outcome then goes on from there.
    ///
    /// - Made by the chain's last step, the task takes the chain's place: its chain hands its
    ///   outcome, which is this chain's, to this chain's `finish`, and this chain ends here.
    ///   A loop whose every level ends in the `flatMap` that makes the next (Scala's
    ///   tail-recursive `flatMap`) then holds one chain at a time, as Scala links the promises
    ///   of such a loop. The task's run would be a child of this chain's run that only that run
    ///   can cancel (nobody else holds the task) and only this chain waits for, so it can be
    ///   this chain's run: cancelling that reaches the task, and ending it releases the waiter.
    /// - Made by an earlier step, under a run nothing can cancel, its chain puts its outcome in
    ///   `output` and resumes this chain: no cancellation could release this chain earlier.
    ///   Each pending level of a recursive loop then holds a chain and one closure.
    @inlinable
    func inlineChild<Work: ThrowableTaskType>(
        _ task: Work, position: Int, output: UnsafeMutablePointer<Result<Work.ResultType, Error>>
    ) -> Bool {
        let isLast = position == links.count - 1
        let kind = TaskKind.of(task)
        guard isLast || run == nil, let body = kind.body,
            case .composed = body.work, !body.isCancelled, run?.isCancelled != true,
            RunLaunch.placement(of: task, kind: kind, start: .waited) == .inPlace
        else { return false }
        if isLast {
            Self.start(body, finishing: finish)
        } else {
            // The slot is written by the child chain's finish, before this loop resumes. The
            // loop resumes through the drain, as a cell's callback would: the level above then
            // resumes after this level's loop has ended, not inside it.
            nonisolated(unsafe) let slot = output
            Self.start(body) { _, outcome in
                slot.initialize(to: ChainSlot.take(outcome, as: Work.ResultType.self))
                CompletionDrain.runSoon { self.resume(at: position) }
            }
        }
        return true
    }

    /// Makes the outcome of `future` the chain's first outcome, in `output`: at once when it is
    /// known, otherwise when it arrives, or when the chain's run is cancelled first. Listening
    /// needs no run of its own: it never blocks, and giving it up drops nothing but the wait.
    /// Returns `true` when the outcome is already there, `false` when ``resume(at:)`` will be
    /// called.
    @inlinable
    func listen<Value>(to future: ListenedFuture<Value>, output: UnsafeMutableRawPointer) -> Bool {
        if let run {
            if let futureRun = future.run, run.isRunning(futureRun) {
                output.initializeMemory(as: Result<Value, Error>.self, to: .failure(TaskigError.awaitedFromItsOwnWork))
                return true
            }
            if run.isCancelled {
                output.initializeMemory(
                    as: Result<Value, Error>.self, to: .failure(CancellableTaskError.taskWasCancelled))
                return true
            }
        }
        // The slot is written by whichever callback claims the source, before the loop resumes.
        // Each callback captures the chain alone, which costs less to keep than a pointer too.
        if let run, hearsCancellationAtOnce {
            run.onCancel {
                guard !self.sourceClaimed.exchange(true, ordering: .relaxed) else { return }
                self.slot(after: 0).initializeMemory(
                    as: Result<Value, Error>.self, to: .failure(CancellableTaskError.taskWasCancelled))
                self.resume(at: 0)
            }
        }
        // Meanwhile the chain's run waits for the future's, holding no thread: the wait-for
        // cycle check follows it there. Only then does the callback clear that note: a
        // promise's future has no run, and its continuations pay nothing for the check. Each
        // callback captures the chain alone, so that registering it allocates nothing.
        if let run, let futureRun = future.run {
            run.noteWaiting(for: futureRun)
            future.cell.whenComplete(reading: { outcome in
                self.run?.noteWaiting(for: nil)
                self.receiveSource(outcome, as: Value.self)
            })
        } else {
            future.cell.whenComplete(reading: { outcome in self.receiveSource(outcome, as: Value.self) })
        }
        return false
    }

    /// Makes the source future's outcome, at `outcome` (see ``CompletionCell/whenComplete(reading:)``),
    /// the chain's first outcome and resumes the loop, unless the run's cancellation came
    /// first: heard as it happened, it has resumed the loop already; not heard, it is the
    /// first outcome instead, so that no step runs in a cancelled run.
    @inlinable
    func receiveSource<Value>(_ outcome: UnsafeRawPointer, as _: Value.Type) {
        if run != nil, sourceClaimed.exchange(true, ordering: .relaxed) { return }
        slot(after: 0).initializeMemory(
            as: Result<Value, Error>.self,
            to: run?.isCancelled == true
                ? .failure(CancellableTaskError.taskWasCancelled) : CompletionCell<Result<Value, Error>>.read(outcome))
        resume(at: 0)
    }
}
