/// Delivers the callbacks of completed cells so that completions set off by callbacks never
/// nest.
///
/// Completing a cell can run a callback that completes another cell, whose callback
/// completes a third, and so on: a chain of futures, each a continuation of the one before,
/// would otherwise use stack in proportion to its length. So the first completion on a thread
/// delivers its callbacks here and stays to deliver whatever they set off; a completion made
/// from inside a callback only queues its callbacks, which run once the callback returns, on
/// the same thread, in order (a loop, as in swift-nio's event loop).
///
/// A callback that goes on to block (a continuation that awaits something) first runs what was
/// queued behind it (``runDeferred()``, called by ``BlockingWait``): what it waits for may be
/// among them.
@usableFromInline
enum CompletionDrain {
    /// Per thread: `nil` when no delivery runs here; ``delivering`` while one does and
    /// nothing was queued; otherwise a retained ``Deferred``.
    @usableFromInline
    static let slot = ThreadLocalSlot()

    /// Marks a thread that delivers callbacks and has queued none, without an allocation.
    @usableFromInline
    nonisolated(unsafe) static let delivering = UnsafeMutableRawPointer(bitPattern: 1)!

    /// Callbacks queued on one thread while it was delivering.
    @usableFromInline
    final class Deferred {
        var queued: [Queued]
        var next = 0

        init(_ queued: [Queued]) {
            self.queued = queued
        }
    }

    /// What a thread is to run once the callback it is delivering returns.
    enum Queued {
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
        switch slot.pointer {
        case nil:
            slot.pointer = delivering
            for callback in callbacks { callback.call(value) }
            runDeferred()
            slot.pointer = nil
        case delivering:
            let queued = callbacks.map { Queued.callback($0, value: value, owner: owner) }
            slot.pointer = Unmanaged.passRetained(Deferred(queued)).toOpaque()
        case let pointer?:
            let deferred = Unmanaged<Deferred>.fromOpaque(pointer).takeUnretainedValue()
            for callback in callbacks { deferred.queued.append(.callback(callback, value: value, owner: owner)) }
        }
    }

    /// Runs `work` now, or after the callback this thread is delivering returns, like a
    /// callback: a recursive loop that starts each level from the level before (see
    /// ``ChainRun/start(_:finishing:)``) then starts them one after another, on one stack.
    @usableFromInline
    static func runSoon(_ work: @escaping () -> Void) {
        switch slot.pointer {
        case nil:
            slot.pointer = delivering
            work()
            runDeferred()
            slot.pointer = nil
        case delivering:
            slot.pointer = Unmanaged.passRetained(Deferred([.work(work)])).toOpaque()
        case let pointer?:
            Unmanaged<Deferred>.fromOpaque(pointer).takeUnretainedValue().queued.append(.work(work))
        }
    }

    /// Runs the callbacks queued on this thread, including those they queue in turn.
    @usableFromInline
    static func runDeferred() {
        while let pointer = slot.pointer, pointer != delivering {
            let unmanaged = Unmanaged<Deferred>.fromOpaque(pointer)
            // A strong reference: a callback that blocks runs the rest itself, and the one
            // that finds the queue empty releases it.
            let deferred = unmanaged.takeUnretainedValue()
            if deferred.next < deferred.queued.count {
                let queued = deferred.queued[deferred.next]
                deferred.next += 1
                // Run entries are dropped as the queue empties: a loop a million levels deep
                // queues one entry per level and keeps no more than what is still to run.
                if deferred.next == deferred.queued.count {
                    deferred.queued.removeAll(keepingCapacity: true)
                    deferred.next = 0
                }
                queued.run()
            } else {
                slot.pointer = delivering
                unmanaged.release()
            }
        }
    }
}
