/// The run whose work executes on this thread right now, if any.
///
/// A run started while this is set becomes its child (see ``Run``), and a task's work asks
/// here about its own run (``ThrowableTask/isCurrentTaskCancelled``). It is set for the
/// synchronous part of a run's work: the call to `action(completion:)`, a task's closure, a
/// continuation. Work that goes on elsewhere (a callback from another thread, an `async`
/// body) is outside it, and a run that nothing can cancel leaves it as it was.
@usableFromInline
enum CurrentRun {
    @usableFromInline
    static let slot = ThreadLocalSlot()

    /// The run executing here. The code that set it holds the run for as long as it is set,
    /// so it is stored unretained.
    @inlinable
    static var run: Run? {
        guard let pointer = slot.pointer else { return nil }
        return Unmanaged<Run>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body` as the work of `run`, then restores what was set before.
    @inlinable
    static func whileRunning<Result>(_ run: Run?, _ body: () throws -> Result) rethrows -> Result {
        let outer = slot.pointer
        let inner = run.map { Unmanaged.passUnretained($0).toOpaque() }
        if inner == outer { return try body() }
        slot.pointer = inner
        defer { slot.pointer = outer }
        return try body()
    }
}
