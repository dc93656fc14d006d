import Dispatch
import Foundation

extension Dictionary where Value: ThrowableTaskType {
    /// Runs every task, at most `concurrency` at once, and returns their values under the
    /// same keys. Fails fast, and counts the tasks in `progress`, like the sequence's
    /// `awaitAll`.
    ///
    /// ```swift
    /// let sizes = try ["a": sizeOf(a), "b": sizeOf(b)].awaitAll()   // ["a": 10, "b": 20]
    /// ```
    @inlinable
    @available(
        *, noasync,
        message: "it blocks the thread; use 'try await ThrowableTask { try tasks.awaitAll() }.value'"
    )
    public func awaitAll(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        progress: Progress? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) throws -> [Key: Value.ResultType] {
        let values = try self.values.awaitAll(
            queue, concurrency: concurrency, progress: progress, file: file, line: line)
        return Dictionary<Key, Value.ResultType>(uniqueKeysWithValues: zip(keys, values))
    }

    /// Runs every task, at most `concurrency` at once, lets each settle, and returns their
    /// outcomes under the same keys; counts the tasks in `progress` like the sequence's
    /// `awaitAllResults`.
    @inlinable
    @available(
        *, noasync,
        message: "it blocks the thread; use 'try await ThrowableTask { tasks.awaitAllResults() }.value'"
    )
    public func awaitAllResults(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        progress: Progress? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> [Key: Result<Value.ResultType, Error>] {
        let results = values.awaitAllResults(
            queue, concurrency: concurrency, progress: progress, file: file, line: line)
        return Dictionary<Key, Result<Value.ResultType, Error>>(uniqueKeysWithValues: zip(keys, results))
    }

    /// The value of the first task to finish, or its error (a race); cancels the others' runs.
    /// No tasks throw ``TaskigError/emptySequence``.
    @inlinable
    @available(
        *, noasync,
        message: "it blocks the thread; use 'try await ThrowableTask { try tasks.awaitFirst() }.value'"
    )
    public func awaitFirst(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        file: StaticString = #fileID,
        line: UInt = #line
    ) throws -> Value.ResultType {
        try values.awaitFirst(queue, concurrency: concurrency, file: file, line: line)
    }

    /// The outcome of the first task to finish; cancels the others' runs. No tasks give
    /// `.failure(TaskigError.emptySequence)`.
    @inlinable
    @available(
        *, noasync,
        message: "it blocks the thread; use 'try await ThrowableTask { tasks.awaitFirstResult() }.value'"
    )
    public func awaitFirstResult(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> Result<Value.ResultType, Error> {
        values.awaitFirstResult(queue, concurrency: concurrency, file: file, line: line)
    }

    /// The value of the first task to succeed; fails only when all fail
    /// (``TaskigError/allFailed(_:)``, errors in the dictionary's iteration order).
    @inlinable
    @available(
        *, noasync,
        message: "it blocks the thread; use 'try await ThrowableTask { try tasks.awaitAny() }.value'"
    )
    public func awaitAny(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        file: StaticString = #fileID,
        line: UInt = #line
    ) throws -> Value.ResultType {
        try values.awaitAny(queue, concurrency: concurrency, file: file, line: line)
    }
}

extension Dictionary where Value: TaskType {
    /// Runs every task, at most `concurrency` at once, and returns their values under the
    /// same keys.
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'await Task { tasks.awaitAll() }.value'")
    public func awaitAll(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> [Key: Value.ResultType] {
        let values = self.values.awaitAll(queue, concurrency: concurrency, file: file, line: line)
        return Dictionary<Key, Value.ResultType>(uniqueKeysWithValues: zip(keys, values))
    }

    /// The value of the first task to finish. There must be at least one task.
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'await Task { tasks.awaitFirst() }.value'")
    public func awaitFirst(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> Value.ResultType {
        values.awaitFirst(queue, concurrency: concurrency, file: file, line: line)
    }
}
