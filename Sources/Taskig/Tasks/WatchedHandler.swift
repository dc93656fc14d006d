import Dispatch
import Synchronization

/// The completion handler Taskig gives the work of a callback task, watched: released without
/// having been called, it fails the run with ``TaskigError/callbackDropped(task:)`` instead of
/// leaving its waiters parked for good.
///
/// Only handlers that code outside Taskig holds are watched: the `done` of
/// `ThrowableTask { done in … }` and the `completion` of a type's own `action(completion:)`.
/// A value-returning closure reports before its call returns, and Taskig's own work (an
/// `async` body, a future's listener, a composed chain) keeps its handlers, so those pay
/// nothing. A watched run pays this one object: the closure handed to the work captures it
/// alone, which Swift passes as the closure's context without another allocation.
///
/// The last reference may go in the user's own `deinit`, or under the user's lock, so the
/// `deinit` here runs no user code and takes no lock: it hands the failure, which runs the
/// run's continuations and wakes its waiters, and the naming of the task, which asks the
/// task's `executionQueue`, to a worker thread.
@usableFromInline
final class WatchedHandler<Value>: Sendable {
    /// The task whose run this is, to name it: its `executionQueue` is the user's code, read
    /// only on the worker that reports the drop. A task's contract lets Taskig use it on any
    /// thread. Kept as an existential, so that the handler's closure, which calls this class,
    /// depends on the value type only (a closure that needs the task's own type must carry
    /// it); a ``ThrowableTask`` fits in the existential's inline buffer.
    @usableFromInline
    nonisolated(unsafe) let task: any ThrowableTaskType
    @usableFromInline
    let completion: @Sendable (Result<Value, Error>) -> Void
    /// Set before the handler calls `completion`; the reference count's release and acquire
    /// make it visible to the `deinit`, wherever the last reference goes.
    @usableFromInline
    let wasCalled = Atomic<Bool>(false)

    @inlinable
    init(task: any ThrowableTaskType, completion: @escaping @Sendable (Result<Value, Error>) -> Void) {
        self.task = task
        self.completion = completion
    }

    /// `completion`, watched, as the handler of a run of `task`.
    @inlinable
    static func watching<Work: ThrowableTaskType>(
        _ completion: @escaping @Sendable (Result<Value, Error>) -> Void, of task: Work
    ) -> @Sendable (Result<Value, Error>) -> Void where Work.ResultType == Value {
        let handler = WatchedHandler(task: task, completion: completion)
        return { outcome in handler.call(with: outcome) }
    }

    @inlinable
    func call(with outcome: Result<Value, Error>) {
        wasCalled.store(true, ordering: .relaxed)
        completion(outcome)
    }

    deinit {
        guard !wasCalled.load(ordering: .relaxed) else { return }
        let completion = completion
        nonisolated(unsafe) let task = task
        WorkerPool.shared.submit {
            let name = HandlerWatch.name(of: type(of: task), queue: task.executionQueue)
            completion(.failure(TaskigError.callbackDropped(task: name)))
        }
    }
}

/// The completion handler Taskig gives the work of a ``Task`` made with a callback, watched.
///
/// A `Task` cannot fail, so there is no error to end its run with: like swift-nio's leaked
/// promise, a debug build stops with a message that names the task, and an optimized build
/// writes that message to standard error, once, and leaves the run pending. The `deinit` runs
/// no user code and takes no lock: the message is written with one `write(2)`.
@usableFromInline
final class WatchedPlainHandler<Value>: Sendable {
    /// The task's queue as it was made: `nil` for the default global queue.
    @usableFromInline
    let queue: DispatchQueue?
    @usableFromInline
    let completion: @Sendable (Value) -> Void
    /// See ``WatchedHandler/wasCalled``.
    @usableFromInline
    let wasCalled = Atomic<Bool>(false)

    @inlinable
    init(queue: DispatchQueue?, completion: @escaping @Sendable (Value) -> Void) {
        self.queue = queue
        self.completion = completion
    }

    /// `completion`, watched, as the handler of a run of a ``Task`` whose queue is `queue`
    /// (`nil`: the default global queue).
    @inlinable
    static func watching(
        _ completion: @escaping @Sendable (Value) -> Void, queue: DispatchQueue?
    ) -> @Sendable (Value) -> Void {
        let handler = WatchedPlainHandler(queue: queue, completion: completion)
        return { value in handler.call(with: value) }
    }

    @inlinable
    func call(with value: Value) {
        wasCalled.store(true, ordering: .relaxed)
        completion(value)
    }

    deinit {
        guard !wasCalled.load(ordering: .relaxed) else { return }
        let name = HandlerWatch.name(of: Task<Value>.self, queue: queue ?? QueueAffinity.defaultGlobalQueue)
        let message = HandlerWatch.plainTaskMessage(name: name)
        #if DEBUG
            fatalError(message)
        #else
            Platform.writeToStandardError("Taskig: \(message)\n")
        #endif
    }
}

/// Which handlers are watched, and what a dropped one says.
@usableFromInline
enum HandlerWatch {
    /// A task as ``TaskigError/callbackDropped(task:)`` names it: its type and its queue's
    /// label, `ThrowableTask<Int> on queue com.apple.root.default-qos`.
    static func name(of type: Any.Type, queue: DispatchQueue) -> String {
        "\(type) on queue \(queue.label)"
    }

    /// What a ``Task`` whose handler was dropped stops a debug build with.
    static func plainTaskMessage(name: String) -> String {
        "the completion handler of \(name) was released without being called, so its run can never end; "
            + "call the completion handler exactly once on every path of the work, or make the task a "
            + "ThrowableTask, whose run then fails with TaskigError.callbackDropped"
    }
}
