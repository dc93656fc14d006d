/// The cancellation state of the ``ThrowableTask`` whose work runs on this thread right now,
/// so that the work can ask about its own task without holding a reference to it.
@usableFromInline
enum CurrentCancellation {
    private static let slot = ThreadLocalSlot()

    /// Runs `body` as the work of the task with `token`.
    @usableFromInline
    static func whileRunning<Result>(_ token: CancellationToken, _ body: () throws -> Result) rethrows -> Result {
        let outer = slot.pointer
        // The task holds the token for as long as its work runs, so it need not be retained.
        slot.pointer = Unmanaged.passUnretained(token.state.buffer).toOpaque()
        defer { slot.pointer = outer }
        return try body()
    }

    /// The token of the task whose work runs here, if any.
    static var token: CancellationToken? {
        slot.pointer.map {
            CancellationToken(
                state: LockedState(
                    buffer: Unmanaged<ManagedBuffer<CancellationToken.State, PlatformLock.Primitive>>.fromOpaque($0)
                        .takeUnretainedValue()))
        }
    }
}

extension ThrowableTask where T == Void {
    /// Whether the ``ThrowableTask`` whose work is running on this thread has been cancelled;
    /// `false` outside a task's work.
    ///
    /// It answers for the synchronous part of a task's work (and the closures of a composed
    /// task, which share its cancellation state); work that continues on another thread, or
    /// an `async` body (use `_Concurrency.Task.checkCancellation()` there), is not covered.
    ///
    /// ```swift
    /// let sum = ThrowableTask { () -> Int in
    ///     var total = 0
    ///     for chunk in chunks {
    ///         if ThrowableTask.isCurrentTaskCancelled { break }
    ///         total += process(chunk)
    ///     }
    ///     return total
    /// }
    /// ```
    public static var isCurrentTaskCancelled: Bool {
        CurrentCancellation.token?.isCancelled ?? false
    }

    /// Throws ``CancellableTaskError/taskWasCancelled`` when the ``ThrowableTask`` whose work is
    /// running on this thread has been cancelled (see ``isCurrentTaskCancelled``).
    ///
    /// ```swift
    /// let report = ThrowableTask { () -> Report in
    ///     var report = Report()
    ///     for section in sections {
    ///         try ThrowableTask.checkCancellation()
    ///         report.add(render(section))
    ///     }
    ///     return report
    /// }
    /// ```
    public static func checkCancellation() throws {
        if isCurrentTaskCancelled { throw CancellableTaskError.taskWasCancelled }
    }
}
