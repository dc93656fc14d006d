import Dispatch
import Foundation

/// A cold, cancellable description of work that produces a value or fails.
///
/// Nothing runs when a `ThrowableTask` is made; each ``ThrowableTaskType/await()`` runs its
/// work again. Copies share one cancellation state: cancelling any copy cancels them all,
/// for good.
///
/// ```swift
/// let task = ThrowableTask<Data> { try Data(contentsOf: fileURL) }
/// let data = try task.await()
/// ```
public struct ThrowableTask<T>: ThrowableTaskType, CancellableTaskType, Sendable {
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
    /// A `var` only so that a consuming wait can ask whether it holds the last reference
    /// (see ``awaitResult()``); it is never reassigned.
    @usableFromInline
    var cancellationToken: CancellationToken
    /// For a composed task, the last link of its chain; `nil` for a task made from a closure.
    @usableFromInline
    let chainLink: ChainLink?
    @usableFromInline
    let work: Work

    /// The work in the form it was given. A value-returning closure is kept as it is, so that
    /// a run in place can simply call it, with no completion callback to allocate.
    @usableFromInline
    enum Work: Sendable {
        case returning(@Sendable () throws -> T)
        case reporting(@Sendable (@escaping @Sendable (Result<T, Error>) -> Void) -> Void)
    }

    /// A task whose work returns a value or throws, run on the global concurrent queue.
    ///
    /// ```swift
    /// let parsed = ThrowableTask<Int> {
    ///     guard let n = Int("42") else { throw ParseError() }
    ///     return n
    /// }
    /// ```
    @inlinable
    public init(action: @escaping @Sendable () throws -> T) {
        self.init(onDefaultQueue: .returning(action))
    }

    /// A task whose work returns a value or throws, run on `executionQueue`.
    ///
    /// ```swift
    /// let settings = ThrowableTask<Data>(executionQueue: .utility) { try Data(contentsOf: settingsURL) }
    /// ```
    @inlinable
    public init(executionQueue: DispatchQueue, action: @escaping @Sendable () throws -> T) {
        self.init(executionQueue: executionQueue, cancellationToken: CancellationToken(), work: .returning(action))
    }

    /// A task whose work reports its outcome through a callback, for wrapping asynchronous APIs,
    /// started on the global concurrent queue.
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
        self.init(onDefaultQueue: .reporting(action))
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
        self.init(executionQueue: executionQueue, cancellationToken: CancellationToken(), work: .reporting(action))
    }

    /// A task whose work is Swift concurrency code: the same as the initializer that also
    /// takes an `executionQueue`, given `.global()`.
    ///
    /// ```swift
    /// let greeting = ThrowableTask<String> { () async throws -> String in "hello" }
    /// ```
    public init(action: @escaping @Sendable () async throws -> T) {
        self.init(executionQueue: QueueAffinity.defaultGlobalQueue, action: action)
    }

    /// A task whose work is Swift concurrency code. Each run starts it in a new
    /// `_Concurrency.Task`, which is cancelled when this task is and which runs on Taskig's
    /// worker threads rather than Swift's cooperative pool, so that blocking waits elsewhere
    /// cannot keep it from starting.
    ///
    /// ```swift
    /// let greeting = ThrowableTask<String> { () async throws -> String in
    ///     try await _Concurrency.Task.sleep(nanoseconds: 1_000_000)
    ///     return "hello"
    /// }
    /// let text = try greeting.await()
    /// ```
    ///
    /// From async code, wait with ``ThrowableTaskType/value``, which suspends, rather than
    /// the blocking ``ThrowableTaskType/await()``, which holds a cooperative thread.
    public init(
        executionQueue: DispatchQueue,
        action: @escaping @Sendable () async throws -> T
    ) {
        let token = CancellationToken()
        self.init(executionQueue: executionQueue, cancellationToken: token) { completion in
            // The cancellation handler must go once the work ends, whichever happens first:
            // the work ending or the handler being registered.
            let registration = LockedState((handler: CancellationToken.HandlerID?.none, workEnded: false))
            let work = _Concurrency.Task(executorPreference: WorkerTaskExecutor.shared) {
                let result: Result<T, Error>
                do {
                    result = .success(try await action())
                } catch is CancellationError where token.isCancelled {
                    // The Swift task was cancelled because this task was: report it as such.
                    result = .failure(CancellableTaskError.taskWasCancelled)
                } catch {
                    result = .failure(error)
                }
                completion(result)
                let handler = registration.withLock { state in
                    state.workEnded = true
                    return state.handler
                }
                if let handler { token.removeHandler(handler) }
            }
            guard let handler = token.onCancel({ work.cancel() }) else { return }
            let workEnded = registration.withLock { state in
                state.handler = handler
                return state.workEnded
            }
            if workEnded { token.removeHandler(handler) }
        }
    }

    /// A task with the given cancellation state, for composed tasks that share the state
    /// of the task they continue.
    @inlinable
    init(
        executionQueue: DispatchQueue,
        executionQueueKind: QueueAffinity.Kind? = nil,
        cancellationToken: CancellationToken,
        chainLink: ChainLink? = nil,
        body: @escaping @Sendable (@escaping @Sendable (Result<T, Error>) -> Void) -> Void
    ) {
        self.init(
            executionQueue: executionQueue, executionQueueKind: executionQueueKind,
            cancellationToken: cancellationToken, chainLink: chainLink, work: .reporting(body))
    }

    @inlinable
    init(
        executionQueue: DispatchQueue?,
        executionQueueKind: QueueAffinity.Kind? = nil,
        cancellationToken: CancellationToken,
        chainLink: ChainLink? = nil,
        work: Work
    ) {
        self.chosenQueue = executionQueue
        self.executionQueueKind =
            executionQueueKind ?? executionQueue.map { QueueAffinity.kind(of: $0) } ?? .globalConcurrent
        self.cancellationToken = cancellationToken
        self.chainLink = chainLink
        self.work = work
    }

    /// A task on the global queue, whose kind is known without asking the queue: that lookup
    /// and the fresh `DispatchQueue.global()` wrapper would cost more than running a short task.
    @inlinable
    init(onDefaultQueue work: Work) {
        self.init(executionQueue: nil, cancellationToken: CancellationToken(), work: work)
    }

    /// Performs the work and reports its outcome through `completion`. A cancelled task
    /// reports ``CancellableTaskError/taskWasCancelled`` without running its work.
    @inlinable
    public func action(completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        guard !cancellationToken.isCancelled else {
            completion(.failure(CancellableTaskError.taskWasCancelled))
            return
        }
        CurrentCancellation.whileRunning(cancellationToken) {
            switch work {
            case .returning(let produce): completion(Result(catching: produce))
            case .reporting(let start): start(completion)
            }
        }
    }

    /// Whether the task has been cancelled. Running work can poll it to stop early.
    ///
    /// Setting it to `true` cancels the task, like ``cancel()``. Cancellation cannot be
    /// undone: setting `false` on a cancelled task is a programming error.
    @inlinable
    public var isCancelled: Bool {
        get { cancellationToken.isCancelled }
        set {
            if newValue {
                cancellationToken.cancel()
            } else {
                requireCorrectUse(
                    !cancellationToken.isCancelled,
                    "A cancelled ThrowableTask cannot be un-cancelled; make a new task instead"
                )
            }
        }
    }

    /// Cancels the task and every copy of it: waiters get
    /// ``CancellableTaskError/taskWasCancelled`` at once, a run that has not started never
    /// starts, and running work can see ``isCancelled``. Cancelling twice is harmless.
    @inlinable
    public func cancel() {
        cancellationToken.cancel()
    }
}

extension ThrowableTask: CancellationTokenCarrier, KnownQueueKind, ChainLinkCarrier, ActionReportsCancellation {}

extension ThrowableTask: SelfAwaitDetectable {
    @usableFromInline
    var runningWorkIdentity: ObjectIdentifier? { chainLink.map(ObjectIdentifier.init) }
}
