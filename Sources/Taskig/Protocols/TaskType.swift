import Dispatch
import Foundation

/// A unit of work that produces a value and cannot fail.
///
/// Conform a type by saying where its work runs and how it reports its value; every
/// waiting operation comes from protocol extensions:
///
/// ```swift
/// struct Answer: TaskType {
///     var executionQueue: DispatchQueue { .global() }
///     func action(completion: @escaping @Sendable (Int) -> Void) {
///         completion(42)
///     }
/// }
/// let value = Answer().await()   // 42
/// ```
///
/// Taskig calls `action(completion:)` once per run, on `executionQueue` (or, for a global
/// concurrent queue, on whichever thread is waiting; see "How waiting works" in the README).
/// The action calls `completion` exactly once, from any thread; later calls are ignored.
public protocol TaskType<ResultType> {
    /// The value the task produces.
    associatedtype ResultType
    /// The callback that receives the task's value. It may be called from any thread.
    typealias resultHandler = @Sendable (ResultType) -> Void

    /// The queue the task's work runs on.
    var executionQueue: DispatchQueue { get }

    /// Performs the work and reports its value through `completion`.
    func action(completion: @escaping resultHandler)
}

/// A unit of work that produces a value or fails with an error.
///
/// Conform a type by saying where its work runs and how it reports its outcome:
///
/// ```swift
/// struct Parse: ThrowableTaskType {
///     let text: String
///     var executionQueue: DispatchQueue { .global() }
///     func action(completion: @escaping @Sendable (Result<Int, Error>) -> Void) {
///         completion(Result { guard let n = Int(text) else { throw ParseError() }; return n })
///     }
/// }
/// let n = try Parse(text: "12").await()   // 12
/// ```
///
/// Taskig calls `action(completion:)` once per run, on `executionQueue` (or, for a global
/// concurrent queue, on whichever thread is waiting). The action calls `completion` exactly
/// once, from any thread; later calls are ignored. A `completion` released without having been
/// called fails the run with ``TaskigError/callbackDropped(task:)``.
public protocol ThrowableTaskType<ResultType> {
    /// The value the task produces when it succeeds.
    associatedtype ResultType
    /// The callback that receives the task's outcome. It may be called from any thread.
    typealias resultHandler = @Sendable (Result<ResultType, Error>) -> Void

    /// The queue the task's work runs on.
    var executionQueue: DispatchQueue { get }

    /// Performs the work and reports its outcome through `completion`.
    func action(completion: @escaping resultHandler)
}

/// The outcome of a ``ThrowableTaskType``; the name older Taskig code uses for
/// `Result<T, Error>`.
public typealias TaskResult<T> = Result<T, Error>

/// The number of tasks the collection waits run at once unless told otherwise.
public let DefaultConcurrency = 50
