/// Delivers the callbacks of completed cells so that completions set off by callbacks never
/// nest.
///
/// Completing a cell can run a callback that completes another cell, whose callback
/// completes a third, and so on: a chain of futures, each a continuation of the one before,
/// would otherwise use stack in proportion to its length. So callbacks are delivered through a
/// ``ThreadLocalDrain``: the first completion on a thread delivers its callbacks and stays to
/// deliver whatever they set off; a completion made from inside a callback only queues its
/// callbacks, which run once the callback returns, on the same thread, in order.
///
/// A callback that goes on to block (a continuation that awaits something) first runs what was
/// queued behind it (``runDeferred()``, called by ``BlockingWait``): what it waits for may be
/// among them.
@usableFromInline
enum CompletionDrain {
    private static let drain = ThreadLocalDrain<Queued>()

    /// What a thread is to run once the callback it is delivering returns.
    enum Queued: DrainItem {
        /// A callback and the value it is to get, whose owner is held until it has run.
        case callback(CompletionCallback, value: UnsafeRawPointer, owner: AnyObject)
        /// Work that would otherwise nest in the callback that set it off (see ``runSoon(_:)``).
        case work(() -> Void)

        func run() {
            switch self {
            case .callback(let callback, let value, _): callback.call(value)
            case .work(let work): work()
            }
        }
    }

    /// Calls each of `callbacks` with `value` now, or after the callback this thread is
    /// delivering returns. `owner` holds the memory `value` points into.
    @usableFromInline
    static func deliver(_ callbacks: [CompletionCallback], value: UnsafeRawPointer, owner: AnyObject) {
        drain.run(
            { for callback in callbacks { callback.call(value) } },
            orQueue: { queue in
                for callback in callbacks { queue.append(.callback(callback, value: value, owner: owner)) }
            })
    }

    /// Runs `work` now, or after the callback this thread is delivering returns, like a
    /// callback: a recursive loop that starts each level from the level before (see
    /// ``ChainRun/start(_:finishing:)``) then starts them one after another, on one stack.
    @usableFromInline
    static func runSoon(_ work: @escaping () -> Void) {
        drain.run(.work(work))
    }

    /// Runs the callbacks queued on this thread, including those they queue in turn.
    @usableFromInline
    static func runDeferred() {
        drain.runQueued()
    }
}
