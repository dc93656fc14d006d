import Dispatch
import Foundation

extension Sequence where Element: ThrowableTaskType {
    /// Runs every task, at most `concurrency` at once, and returns their values in input
    /// order.
    ///
    /// Fails fast: the first failure is thrown as soon as it is known, no further task is
    /// started, and the runs still going are cancelled (the tasks stay usable: awaiting them
    /// again runs them again). `concurrency: 1` runs the tasks one after the other, in order.
    /// `Optional` values are kept as they are.
    ///
    /// ```swift
    /// let pages = try urls.map(fetch).awaitAll(concurrency: 8)
    /// ```
    ///
    /// - Parameters:
    ///   - queue: where the waiting lanes run. The default runs them on Taskig's own
    ///     threads, so tasks that block cannot starve Dispatch's global pool; a serial
    ///     queue you are already on runs them in place.
    ///   - concurrency: the most tasks running at once; at least 1.
    ///   - progress: counts the tasks: the wait adds their number to its `totalUnitCount`
    ///     and each task that settles to its `completedUnitCount` (see
    ///     <doc:CollectionsOfTasks>). `progress.cancel()` ends the wait, which throws
    ///     ``CancellableTaskError/taskWasCancelled``; a progress cancelled already starts
    ///     nothing.
    ///   - file: where the wait is called, which errors and wait reports name; leave the default.
    ///   - line: the line of the call, likewise.
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
    ) throws -> [Element.ResultType] {
        checkConcurrency(concurrency, of: "awaitAll")
        if let progress, progress.isCancelled { throw CancellableTaskError.taskWasCancelled }
        let tasks = Array(self)
        return try [Element.ResultType](unsafeUninitializedCapacity: tasks.count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            let slots = FailFastSlots(base: base, count: tasks.count)
            Batch(
                ThrowingLaneWork<Element>.self, tasks: tasks, lanesOn: queue, concurrency: concurrency, sink: slots,
                progress: progress,
                operation: "awaitAll", site: StaticCallSite(file, line)
            )
            .runAndWait()
            initialized = try slots.finish()
        }
    }

    /// Runs every task, at most `concurrency` at once, lets every one of them settle, and
    /// returns their outcomes in input order.
    ///
    /// When the run this wait is nested in is cancelled, or `progress` is, it returns at once,
    /// and the tasks that had not settled count as cancelled.
    ///
    /// ```swift
    /// for case .failure(let error) in uploads.awaitAllResults() {
    ///     print("one upload failed:", error)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: where the waiting lanes run; see ``awaitAll(_:concurrency:progress:file:line:)``.
    ///   - concurrency: the most tasks running at once; at least 1.
    ///   - progress: counts the tasks as ``awaitAll(_:concurrency:progress:file:line:)`` does.
    ///     `progress.cancel()` ends the wait; a progress cancelled already starts nothing.
    ///   - file: where the wait is called, which errors and wait reports name; leave the default.
    ///   - line: the line of the call, likewise.
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
    ) -> [Result<Element.ResultType, Error>] {
        checkConcurrency(concurrency, of: "awaitAllResults")
        let tasks = Array(self)
        if let progress, progress.isCancelled {
            return Array(repeating: .failure(CancellableTaskError.taskWasCancelled), count: tasks.count)
        }
        guard !tasks.isEmpty else { return [] }
        if progress != nil || CurrentRun.run?.isCancellable ?? false {
            let slots = CancellableResultSlots<Element.ResultType>(count: tasks.count)
            Batch(
                ThrowingLaneWork<Element>.self, tasks: tasks, lanesOn: queue, concurrency: concurrency, sink: slots,
                progress: progress,
                operation: "awaitAllResults", site: StaticCallSite(file, line)
            )
            .runAndWait()
            return slots.outcomes()
        }
        return [Result<Element.ResultType, Error>](unsafeUninitializedCapacity: tasks.count) { buffer, initialized in
            Batch(
                ThrowingLaneWork<Element>.self, tasks: tasks, lanesOn: queue, concurrency: concurrency,
                sink: OrderedSlots(base: buffer.baseAddress!), operation: "awaitAllResults",
                site: StaticCallSite(file, line)
            ).runAndWait()
            initialized = tasks.count
        }
    }
}

extension Sequence where Element: TaskType {
    /// Runs every task, at most `concurrency` at once, and returns their values in input
    /// order.
    ///
    /// ```swift
    /// let squares = (1...10).map { n in Task { n * n } }.awaitAll()
    /// ```
    @inlinable
    @available(*, noasync, message: "it blocks the thread; use 'await Task { tasks.awaitAll() }.value'")
    public func awaitAll(
        _ queue: DispatchQueue = .global(),
        concurrency: Int = DefaultConcurrency,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> [Element.ResultType] {
        checkConcurrency(concurrency, of: "awaitAll")
        let tasks = Array(self)
        guard !tasks.isEmpty else { return [] }
        return [Element.ResultType](unsafeUninitializedCapacity: tasks.count) { buffer, initialized in
            Batch(
                PlainLaneWork<Element>.self, tasks: tasks, lanesOn: queue, concurrency: concurrency,
                sink: OrderedSlots(base: buffer.baseAddress!), operation: "awaitAll", site: StaticCallSite(file, line)
            ).runAndWait()
            initialized = tasks.count
        }
    }
}
