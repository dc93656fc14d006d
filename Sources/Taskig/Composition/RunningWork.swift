/// The continuations and futures whose work runs on the current thread right now.
///
/// Waiting for one of them from inside its own work could never end, so the waits check
/// here first and fail with ``TaskigError/awaitedFromItsOwnWork`` instead of hanging.
@usableFromInline
enum RunningWork {
    private final class Stack {
        var identities: [ObjectIdentifier] = []
    }

    private static let slot = ThreadLocalSlot(releasesObjectAtThreadExit: true)

    private static var stack: Stack {
        if let pointer = slot.pointer {
            return Unmanaged<Stack>.fromOpaque(pointer).takeUnretainedValue()
        }
        let stack = Stack()
        slot.pointer = Unmanaged.passRetained(stack).toOpaque()
        return stack
    }

    /// Runs `body` marked as the work of `identity` on this thread.
    @usableFromInline
    static func whileRunning<Result>(_ identity: ObjectIdentifier, _ body: () throws -> Result) rethrows -> Result {
        let stack = stack
        stack.identities.append(identity)
        defer { stack.identities.removeLast() }
        return try body()
    }

    /// Whether the work of `identity` is running on this thread.
    @usableFromInline
    static func isRunning(_ identity: ObjectIdentifier) -> Bool {
        guard let pointer = slot.pointer else { return false }
        return Unmanaged<Stack>.fromOpaque(pointer).takeUnretainedValue().identities.contains(identity)
    }
}

/// A task whose work can be recognised in ``RunningWork`` while it runs.
@usableFromInline
protocol SelfAwaitDetectable {
    var runningWorkIdentity: ObjectIdentifier? { get }
}

extension RunningWork {
    /// Whether waiting for `task` on this thread would wait for work this thread is running.
    @inlinable
    static func wouldWaitForItself<Work>(_ task: Work) -> Bool {
        guard let identity = (task as? SelfAwaitDetectable)?.runningWorkIdentity else { return false }
        return isRunning(identity)
    }
}
