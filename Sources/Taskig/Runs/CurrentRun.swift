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

    /// Runs `body` as the work of `run`, then restores what was set before.
    @inlinable
    static func whileRunning<Result>(_ run: Run?, _ body: () throws -> Result) rethrows -> Result {
        guard let run else {
            let outer = slot.pointer
            if outer == nil { return try body() }
            slot.pointer = nil
            defer { slot.pointer = outer }
            return try body()
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
        return try withUnsafeMutablePointer(to: &frame) { frame in
            slot.pointer = UnsafeMutableRawPointer(frame)
            defer { slot.pointer = outer }
            return try body(frame)
        }
    }
}

/// One run's place on the stack while its work executes: see ``CurrentRun``.
@usableFromInline
struct RunFrame {
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
