/// The run whose work executes on this thread right now, if any.
///
/// A run started while this is set becomes its child (see ``Run``), and a task's work asks
/// here about its own run (``ThrowableTask/isCurrentTaskCancelled``). It is set for the
/// synchronous part of a run's work: the call to `action(completion:)`, a task's closure, a
/// continuation. Work that goes on elsewhere (a callback from another thread, an `async`
/// body) is outside it, and a run that nothing can cancel leaves it as it was.
///
/// What is set is a ``RunFrame`` on the stack of the code running the work: the run's
/// parent and its task, and the ``Run`` object itself only once something needs one (a
/// handler, a nested run). A run in place that nobody looks at allocates nothing, and a
/// collection's lane sets its frame once and only changes the task in it between tasks.
@usableFromInline
enum CurrentRun {
    @usableFromInline
    static let slot = ThreadLocalSlot()

    /// The frame of the run executing here.
    @inlinable
    static var frame: UnsafeMutablePointer<RunFrame>? {
        slot.pointer?.assumingMemoryBound(to: RunFrame.self)
    }

    /// The run executing here, made now if it was not needed before.
    @inlinable
    static var run: Run? {
        frame?.pointee.materialize()
    }

    /// Whether the run executing here is cancelled; `false` outside a run.
    @inlinable
    static var isCancelled: Bool {
        frame?.pointee.isCancelled ?? false
    }

    /// Runs `body` as the work of `run`, then restores what was set before. With no run,
    /// `body` runs outside any run: under a frame of no run, which keeps the frames below it
    /// reachable (see ``heldHere``).
    @inlinable
    static func whileRunning<Result>(_ run: Run?, _ body: () throws -> Result) rethrows -> Result {
        guard let run else {
            if slot.pointer == nil { return try body() }
            var frame = RunFrame(parent: nil, task: nil)
            return try whileRunning(&frame) { _ in try body() }
        }
        var frame = RunFrame(run: run)
        return try whileRunning(&frame) { _ in try body() }
    }

    /// Runs `body` with `frame` as the frame of the run executing here, then restores what
    /// was set before. `body` gets the frame's address, through which alone the frame may be
    /// changed meanwhile. The caller closes a run the frame made (see
    /// ``RunFrame/closeIfMade()``).
    @inlinable
    static func whileRunning<Result>(
        _ frame: inout RunFrame,
        _ body: (UnsafeMutablePointer<RunFrame>) throws -> Result
    ) rethrows -> Result {
        let outer = slot.pointer
        frame.outer = outer?.assumingMemoryBound(to: RunFrame.self)
        return try withUnsafeMutablePointer(to: &frame) { frame in
            slot.pointer = UnsafeMutableRawPointer(frame)
            defer { slot.pointer = outer }
            return try body(frame)
        }
    }

    /// The runs whose work this thread holds, innermost first: the runs of the frames on its
    /// stack, and the collection runs that wait for every task of a lane here (see
    /// ``RunFrame/Holding``). A wait that parks this thread holds each of them up.
    ///
    /// Also whether a wait here runs in a lane of a collection that another task may end:
    /// ending it cancels the runs of the lane's task, which releases the wait. Only if no run of
    /// its own stands between: a future's work, claimed by a waiter and run here, is a run of
    /// its own that the collection's end does not cancel.
    ///
    /// Only this thread may ask, since the frames are on its stack.
    static var heldHere: (runs: [Run], insideLaneOfAnyTask: Bool) {
        var runs: [Run] = []
        var insideLaneOfAnyTask = false
        var cancellationReachesBelow = true
        var frame = self.frame
        while let current = frame {
            if let run = current.pointee.run {
                runs.append(run)
                if run.parent == nil { cancellationReachesBelow = false }
            }
            switch current.pointee.holding {
            case .ordinary: break
            case .laneOfEveryTask: if let parent = current.pointee.parent { runs.append(parent) }
            case .laneOfAnyTask: if cancellationReachesBelow { insideLaneOfAnyTask = true }
            }
            frame = current.pointee.outer
        }
        return (runs, insideLaneOfAnyTask)
    }
}

/// One run's place on the stack while its work executes: see ``CurrentRun``.
@usableFromInline
struct RunFrame {
    /// What the work under a frame holds up, besides its own run.
    @usableFromInline
    enum Holding {
        /// The work below it on the stack, which cannot go on before this work returns.
        case ordinary
        /// A lane of a collection that waits for every task: the work below, and the
        /// collection's run, `parent`.
        case laneOfEveryTask
        /// A lane of a collection that another task may end (a race, a fail-fast wait), which
        /// then cancels the lane's task: a wait in it may end that way.
        case laneOfAnyTask
    }

    /// The run, once it exists.
    @usableFromInline
    var run: Run?
    @usableFromInline
    var parent: Run?
    /// The cancellation the task's copies share; unretained, since whoever runs the task
    /// holds it for as long as the frame is set.
    @usableFromInline
    unowned(unsafe) var task: (any CancellationSource)?
    /// Whether ``materialize()`` made `run`, which the frame's owner then closes.
    @usableFromInline
    var madeRun = false
    /// What the work under this frame holds up (see ``CurrentRun/heldHere``).
    @usableFromInline
    var holding = Holding.ordinary
    /// The frame this one was set over, on the same thread's stack.
    @usableFromInline
    var outer: UnsafeMutablePointer<RunFrame>?

    /// The frame of an existing run.
    @inlinable
    init(run: Run) {
        self.run = run
    }

    /// The frame of a run that gets a ``Run`` object only if something needs one.
    @inlinable
    init(parent: Run?, task: (any CancellationSource)?) {
        self.parent = parent
        self.task = task
    }

    /// The run, made now when it does not exist yet.
    @inlinable
    mutating func materialize() -> Run? {
        if let run { return run }
        guard parent != nil || task != nil else { return nil }
        let run = Run(parent: parent, task: task, cancellable: false)
        self.run = run
        madeRun = true
        return run
    }

    @inlinable
    @inline(__always)
    var isCancelled: Bool {
        if let run { return run.isCancelled }
        if let task, task.isCancelled { return true }
        return parent?.isCancelled ?? false
    }

    /// Ends a run made in place in this frame: `outcome`, or ``CancellableTaskError/taskWasCancelled``
    /// when the run was cancelled meanwhile; a run the frame made is closed.
    @inlinable
    @inline(__always)
    mutating func finishInPlace<Value>(_ outcome: Result<Value, Error>) -> Result<Value, Error> {
        let task = task
        return finishInPlace(outcome, isTaskCancelled: task?.isCancelled ?? false)
    }

    /// ``finishInPlace(_:)`` for a caller that has asked the task itself whether it is
    /// cancelled: `isTaskCancelled`, read after the work returned. Asking through ``task``
    /// would count a reference to it.
    @inlinable
    @inline(__always)
    mutating func finishInPlace<Value>(
        _ outcome: Result<Value, Error>, isTaskCancelled: @autoclosure () -> Bool
    ) -> Result<Value, Error> {
        let cancelled = run?.isCancelled ?? (isTaskCancelled() || (parent?.isCancelled ?? false))
        closeIfMade()
        return cancelled ? .failure(CancellableTaskError.taskWasCancelled) : outcome
    }

    /// Closes the run if this frame made it, and readies the frame for another run under the
    /// same parent. The task is forgotten too: the frame does not keep it alive.
    @inlinable
    mutating func closeIfMade() {
        if madeRun {
            run?.close()
            run = nil
            madeRun = false
        }
        task = nil
    }
}
