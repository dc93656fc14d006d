import Dispatch
import Foundation

/// A cold, cancellable description of work that produces a value or fails.
///
/// Nothing runs when a `ThrowableTask` is made; each ``ThrowableTaskType/await(file:line:)`` (or
/// `async`, collection wait, `start()`) makes a new run of its work. Giving up on a run
/// cancels that run only, and the task stays usable; ``cancel()`` cancels the task itself for
/// good, in every copy.
///
/// ```swift
/// let task = ThrowableTask<Data> { try Data(contentsOf: fileURL) }
/// let data = try task.await()
/// ```
public struct ThrowableTask<T>: ThrowableTaskType, CancellableTaskType, Sendable {
    /// The work, queue and cancellation every copy shares. A `var` only so that a consuming
    /// wait can ask whether it holds the last copy (see ``awaitResult(file:line:)``); never reassigned.
    @usableFromInline
    var body: TaskBody<T>

    @inlinable
    init(body: TaskBody<T>) {
        self.body = body
    }

    /// The queue the task's work runs on.
    @inlinable
    public var executionQueue: DispatchQueue { body.executionQueue }

    /// A task whose work returns a value or throws, run on the global concurrent queue.
    ///
    /// ```swift
    /// let parsed = ThrowableTask<Int> {
    ///     guard let n = Int("42") else { throw ParseError() }
    ///     return n
    /// }
    /// ```
    @_disfavoredOverload
    @inlinable
    public init(action: @escaping @Sendable () throws -> T) {
        body = TaskBody(onDefaultQueue: action)
    }

    /// A task whose work returns a value and cannot fail, run on the global concurrent queue.
    ///
    /// ```swift
    /// let lengths = lines.map { line in ThrowableTask { line.count } }
    /// ```
    @_disfavoredOverload
    @inlinable
    public init(action: @escaping @Sendable () -> T) {
        body = TaskBody(onDefaultQueue: action)
    }

    /// A task whose work returns a value or throws, run on the global concurrent queue: the
    /// form a client in Swift 5 language mode calls with a closure that is not `@Sendable`.
    ///
    /// The closure is kept as it came. Passed to the `@Sendable` form, a closure taken from an
    /// array of closures would be wrapped twice, in two allocations, to convert it there and
    /// back; in Swift 6 mode, where a closure must be `@Sendable`, this form does not exist.
    @available(swift, obsoleted: 6.0)
    @inlinable
    public init(action: @escaping () throws -> T) {
        body = TaskBody(onDefaultQueue: unsafeBitCast(action, to: (@Sendable () throws -> T).self))
    }

    /// A task whose work returns a value and cannot fail, run on the global concurrent queue:
    /// the form a client in Swift 5 language mode calls with a closure that is not
    /// `@Sendable` (see the throwing `init(action:)` above).
    @available(swift, obsoleted: 6.0)
    @inlinable
    public init(action: @escaping () -> T) {
        body = TaskBody(onDefaultQueue: unsafeBitCast(action, to: (@Sendable () -> T).self))
    }

    /// A task whose work returns a value or throws, run on `executionQueue`.
    ///
    /// ```swift
    /// let settings = ThrowableTask<Data>(executionQueue: .utility) { try Data(contentsOf: settingsURL) }
    /// ```
    @inlinable
    public init(executionQueue: DispatchQueue, action: @escaping @Sendable () throws -> T) {
        body = TaskBody(queue: executionQueue, plainCall: action)
    }

    /// A task whose work reports its outcome through a callback, for wrapping asynchronous APIs,
    /// started on the global concurrent queue.
    ///
    /// The work calls `done` exactly once, on every path, errors included. A `done` released
    /// without having been called (a forgotten branch, an API that drops its handler on an error
    /// path) fails the run with ``TaskigError/callbackDropped(task:)``, rather than leaving its
    /// waiters waiting forever.
    ///
    /// ```swift
    /// let fetch = ThrowableTask<Data> { done in
    ///     URLSession.shared.dataTask(with: url) { data, _, error in
    ///         done(Result { if let error { throw error }; return data ?? Data() })
    ///     }.resume()
    /// }
    /// ```
    @inlinable
    public init(action: @escaping @Sendable (@escaping @Sendable (Result<T, Error>) -> Void) -> Void) {
        body = TaskBody(onDefaultQueue: .reporting(action))
    }

    /// A task whose work reports its outcome through a callback, started on `executionQueue`.
    ///
    /// ```swift
    /// let onMain = ThrowableTask<Int>(executionQueue: .main) { done in done(.success(1)) }
    /// ```
    @inlinable
    public init(
        executionQueue: DispatchQueue,
        action: @escaping @Sendable (@escaping @Sendable (Result<T, Error>) -> Void) -> Void
    ) {
        body = TaskBody(queue: executionQueue, work: .reporting(action))
    }

    /// Performs the work and reports its outcome through `completion`. A task cancelled for
    /// good reports ``CancellableTaskError/taskWasCancelled`` without running its work.
    @inlinable
    public func action(completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        guard !body.isCancelled else {
            completion(.failure(CancellableTaskError.taskWasCancelled))
            return
        }
        body.start(reportingTo: completion)
    }

    /// Whether the task has been cancelled for good (by ``cancel()`` on any copy).
    ///
    /// Giving up on one run (a timeout, a failing collection) does not set it; a running body
    /// asks about its own run with ``ThrowableTask/isCurrentTaskCancelled``. Setting it to
    /// `true` cancels the task, like ``cancel()``. Cancellation cannot be undone: setting
    /// `false` on a cancelled task is a programming error.
    @inlinable
    public var isCancelled: Bool {
        get { body.isCancelled }
        set {
            if newValue {
                body.cancel()
            } else {
                requireCorrectUse(
                    !body.isCancelled,
                    "A cancelled ThrowableTask cannot be un-cancelled; make a new task instead"
                )
            }
        }
    }

    /// Cancels the task for good, in every copy: its runs in progress are cancelled (their
    /// waiters get ``CancellableTaskError/taskWasCancelled`` at once, and their work sees
    /// ``ThrowableTask/isCurrentTaskCancelled``), and later runs never start. Cancelling twice
    /// is harmless.
    ///
    /// Cancelling a composed task (`map`, `flatMap`, …) cancels its own runs, and with them
    /// the runs they wait on, but not the task it continues.
    @inlinable
    public func cancel() {
        body.cancel()
    }
}

extension ThrowableTask: KindOfTask {
    @inlinable
    static func kind<Work, Value>(of task: Work, producing _: Value.Type) -> TaskKind<Value> {
        // `Work` is this type, and `Value` its `T` (see ``TaskKind/of(_:)``).
        .throwable(unsafeBitCast(task, to: ThrowableTask<Value>.self).body)
    }
}
