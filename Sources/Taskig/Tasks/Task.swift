import Dispatch
import Foundation

/// A cold description of work that produces a value and cannot fail.
///
/// Nothing runs when a `Task` is made; each ``TaskType/await()`` or
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
    public let executionQueue: DispatchQueue
    @usableFromInline
    let executionQueueKind: QueueAffinity.Kind
    @usableFromInline
    let body: @Sendable (@escaping @Sendable (T) -> Void) -> Void

    /// A task whose work returns its value.
    ///
    /// ```swift
    /// let answer = Task<Int>(executionQueue: .background) { 42 }
    /// ```
    @inlinable
    public init(
        executionQueue: DispatchQueue = .global(),
        action: @escaping @Sendable () -> T
    ) {
        self.executionQueue = executionQueue
        self.executionQueueKind = QueueAffinity.kind(of: executionQueue)
        self.body = { completion in completion(action()) }
    }

    /// A task whose work reports its value through a callback, for wrapping asynchronous APIs.
    ///
    /// ```swift
    /// let later = Task<String> { done in
    ///     DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { done("ready") }
    /// }
    /// ```
    @inlinable
    public init(
        executionQueue: DispatchQueue = .global(),
        action: @escaping @Sendable (@escaping @Sendable (T) -> Void) -> Void
    ) {
        self.executionQueue = executionQueue
        self.executionQueueKind = QueueAffinity.kind(of: executionQueue)
        self.body = action
    }

    /// Performs the work and reports its value through `completion`.
    @inlinable
    public func action(completion: @escaping @Sendable (T) -> Void) {
        body(completion)
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

extension Task: KnownQueueKind {}
