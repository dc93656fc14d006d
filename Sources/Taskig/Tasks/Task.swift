import Dispatch
import Foundation

/// A cold description of work that produces a value and cannot fail.
///
/// Nothing runs when a `Task` is made; each ``TaskType/await(file:line:)`` or
/// ``TaskType/async(delayBy:completion:)`` runs its work again.
///
/// ```swift
/// let sum = Task { (1...100).reduce(0, +) }
/// print(sum.await())                       // blocks until done: 5050
/// sum.async { print("later: \($0)") }      // does not block
/// ```
///
/// In a file that imports Taskig, `Task` means this type; Swift's own is
/// `_Concurrency.Task`.
public struct Task<T>: TaskType, Sendable {
    /// The queue the task's work runs on.
    @inlinable
    public var executionQueue: DispatchQueue { chosenQueue ?? QueueAffinity.defaultGlobalQueue }
    /// The queue given when the task was made; `nil` for the global queue, so that copying
    /// the many tasks of a collection does not make every core count references to one
    /// shared queue object.
    @usableFromInline
    let chosenQueue: DispatchQueue?
    @usableFromInline
    let executionQueueKind: QueueAffinity.Kind
    @usableFromInline
    let work: Work

    /// The queue the work runs on, with its kind.
    @inlinable
    var workQueue: WorkQueue { WorkQueue(chosenQueue, kind: executionQueueKind) }

    /// The work in the form it was given. A value-returning closure is kept as it is, so that
    /// a run in place can simply call it, with no completion callback to allocate.
    @usableFromInline
    enum Work: Sendable {
        case returning(@Sendable () -> T)
        case reporting(@Sendable (@escaping @Sendable (T) -> Void) -> Void)
    }

    /// A task whose work returns its value, run on the global concurrent queue.
    ///
    /// ```swift
    /// let answer = Task { 6 * 7 }
    /// ```
    @_disfavoredOverload
    @inlinable
    public init(action: @escaping @Sendable () -> T) {
        self.init(onDefaultQueue: .returning(action))
    }

    /// A task whose work returns its value, run on the global concurrent queue: the form a
    /// client in Swift 5 language mode calls with a closure that is not `@Sendable`.
    ///
    /// The closure is kept as it came. Passed to the `@Sendable` form, a closure taken from an
    /// array of closures would be wrapped twice, in two allocations, to convert it there and
    /// back; in Swift 6 mode, where a closure must be `@Sendable`, this form does not exist.
    @available(swift, obsoleted: 6.0)
    @inlinable
    public init(action: @escaping () -> T) {
        self.init(onDefaultQueue: .returning(unsafeBitCast(action, to: (@Sendable () -> T).self)))
    }

    /// A task whose work returns its value, run on `executionQueue`.
    ///
    /// ```swift
    /// let answer = Task<Int>(executionQueue: .background) { 42 }
    /// ```
    @inlinable
    public init(executionQueue: DispatchQueue, action: @escaping @Sendable () -> T) {
        self.init(executionQueue: executionQueue, work: .returning(action))
    }

    /// A task whose work reports its value through a callback, for wrapping asynchronous APIs,
    /// started on the global concurrent queue.
    ///
    /// ```swift
    /// let later = Task<String> { done in
    ///     DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { done("ready") }
    /// }
    /// ```
    @inlinable
    public init(action: @escaping @Sendable (@escaping @Sendable (T) -> Void) -> Void) {
        self.init(onDefaultQueue: .reporting(action))
    }

    /// A task whose work reports its value through a callback, started on `executionQueue`.
    ///
    /// ```swift
    /// let onMain = Task<String>(executionQueue: .main) { done in done("ready") }
    /// ```
    @inlinable
    public init(
        executionQueue: DispatchQueue,
        action: @escaping @Sendable (@escaping @Sendable (T) -> Void) -> Void
    ) {
        self.init(executionQueue: executionQueue, work: .reporting(action))
    }

    @inlinable
    init(executionQueue: DispatchQueue, work: Work) {
        self.chosenQueue = executionQueue
        self.executionQueueKind = QueueAffinity.kind(of: executionQueue)
        self.work = work
    }

    /// A task on the global queue, whose kind is known without asking the queue: that lookup
    /// and the fresh `DispatchQueue.global()` wrapper would cost more than running a short task.
    @inlinable
    init(onDefaultQueue work: Work) {
        self.chosenQueue = nil
        self.executionQueueKind = .defaultGlobal
        self.work = work
    }

    /// Performs the work and reports its value through `completion`.
    ///
    /// Work that reports through a callback must call it exactly once. A `Task` cannot fail,
    /// so when its callback is released without having been called, a debug build stops with a
    /// message that names the task, and an optimized build writes that message to standard
    /// error and leaves the run pending (a ``ThrowableTask``'s run fails with
    /// ``TaskigError/callbackDropped(task:)`` instead).
    @inlinable
    public func action(completion: @escaping @Sendable (T) -> Void) {
        switch work {
        case .returning(let produce): completion(produce())
        case .reporting(let start): start(WatchedPlainHandler.watching(completion, queue: chosenQueue))
        }
    }
}

extension Task where T == Void {
    /// Runs `action` on `executionQueue` after `delayBy` seconds, without waiting for it.
    ///
    /// ```swift
    /// Task.async { print("in the background") }
    /// Task.async(executionQueue: .main) { print("on the main queue") }
    /// Task.async(delayBy: 0.25) { print("a quarter second later") }
    /// ```
    @inlinable
    public static func async(
        executionQueue: DispatchQueue = .global(),
        delayBy: TimeInterval = 0,
        action: @escaping @Sendable () -> Void
    ) {
        Task(executionQueue: executionQueue, action: action).async(delayBy: delayBy)
    }
}

extension Task: KindOfTask {
    @inlinable
    static func kind<Work, Value>(of task: Work, producing _: Value.Type) -> TaskKind<Value> {
        // `Work` is this type, and `Value` its `T` (see ``TaskKind/of(_:)``).
        .plain(unsafeBitCast(task, to: Task<Value>.self))
    }
}
