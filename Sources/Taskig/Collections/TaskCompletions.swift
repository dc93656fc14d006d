import Dispatch

/// The outcomes of a sequence of tasks in the order they settle: what
/// ``Swift/Sequence/completions(_:concurrency:file:line:)`` returns.
///
/// Each iteration runs the tasks again, since tasks are descriptions of work, not its result.
/// Iterating blocks until the next task settles; on the main thread the main queue keeps
/// running meanwhile. A failure is an element, not a thrown error. Leaving the loop early
/// (`break`, `return`, a thrown error, or letting go of the iterator) cancels the runs still
/// going and starts no more tasks.
///
/// When the run the loop runs in is cancelled, the tasks that had not settled come out as
/// failures with ``CancellableTaskError/taskWasCancelled``, in input order, after those that
/// had.
public struct TaskCompletions<Work: ThrowableTaskType>: Sequence {
    @usableFromInline
    let tasks: [Work]
    @usableFromInline
    let queue: DispatchQueue
    @usableFromInline
    let concurrency: Int
    /// Where `completions` was called, for the wait report.
    @usableFromInline
    let site: StaticCallSite

    @inlinable
    init(tasks: [Work], queue: DispatchQueue, concurrency: Int, site: StaticCallSite) {
        self.tasks = tasks
        self.queue = queue
        self.concurrency = concurrency
        self.site = site
    }

    /// Starts a new run of every task, at most `concurrency` at once, when its first element
    /// is asked for.
    @inlinable
    public func makeIterator() -> Iterator {
        Iterator(loop: CompletionsLoop(self))
    }

    /// Hands out the outcomes of one run of the tasks, in the order they settle.
    public struct Iterator: IteratorProtocol {
        @usableFromInline
        let loop: CompletionsLoop<Work>

        @inlinable
        init(loop: CompletionsLoop<Work>) {
            self.loop = loop
        }

        /// The next task to settle: its position in the input and its outcome; `nil` once
        /// every task has settled. Blocks until one does.
        @inlinable
        public mutating func next() -> (offset: Int, result: Result<Work.ResultType, Error>)? {
            loop.next()
        }
    }
}

extension TaskCompletions: Sendable where Work: Sendable {}
