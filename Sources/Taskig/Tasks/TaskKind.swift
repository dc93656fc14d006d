import Dispatch

/// What kind of task a value is: the one place where Taskig tells its own kinds of task apart.
///
/// Every run, wait, lane and composition that can do better with a kind of Taskig's own (call
/// a closure in place, listen to a future, read a body where it lies) asks here, and treats
/// anything else by its protocol alone. A new kind of task is a case here and a ``KindOfTask``
/// conformance beside its type.
///
/// Each kind is a type that conforms to ``KindOfTask``, which says what it is. Asking through
/// the type, not the value, costs nothing once the generic code is specialized for a concrete
/// task type: the conformance is then known at compile time, and the answer is inlined.
@usableFromInline
enum TaskKind<Value> {
    /// A ``ThrowableTask``: the body every copy shares.
    case throwable(TaskBody<Value>)
    /// A ``Task``.
    case plain(Task<Value>)
    /// A task whose run only listens to a run already under way: a ``Future``'s one run.
    case listening(FutureState<Value>)
    /// A type of the user's own (or TaskigURL's): only its protocol is known.
    case foreign

    /// The kind of `task`.
    @inlinable
    @inline(__always)
    static func of<Work: ThrowableTaskType>(_ task: Work) -> TaskKind where Work.ResultType == Value {
        (Work.self as? any KindOfTask.Type)?.kind(of: task, producing: Value.self) ?? .foreign
    }

    /// The kind of `task`, a task that cannot fail.
    @inlinable
    @inline(__always)
    static func of<Work: TaskType>(_ task: Work) -> TaskKind where Work.ResultType == Value {
        (Work.self as? any KindOfTask.Type)?.kind(of: task, producing: Value.self) ?? .foreign
    }

    /// `task` when it is a ``Task``: matched by type, which specialized code decides at compile
    /// time, and not copied on the way, for the common wait of a `Task` (see
    /// ``TaskType/await(file:line:)``).
    @inlinable
    @inline(__always)
    static func plain<Work: TaskType>(_ task: Work) -> Task<Value>? where Work.ResultType == Value {
        task as? Task<Value>
    }

    /// The body of a ``ThrowableTask`` stored at `address`, read where it lies, as an unretained
    /// reference: `nil` for any other kind. A collection's lane reads its tasks this way, so
    /// that running one counts no reference.
    @inlinable
    @inline(__always)
    static func throwableBody<Work>(at address: UnsafePointer<Work>) -> Unmanaged<TaskBody<Value>>? {
        guard Work.self == ThrowableTask<Value>.self else { return nil }
        // A `ThrowableTask` is its body's reference alone, so its bits are an `Unmanaged` one.
        assert(MemoryLayout<ThrowableTask<Value>>.size == MemoryLayout<Unmanaged<AnyObject>>.size)
        return UnsafeRawPointer(address).load(as: Unmanaged<TaskBody<Value>>.self)
    }

    /// The ``Task`` stored at `address`, read where it lies: `nil` for any other kind.
    @inlinable
    @inline(__always)
    static func plainTask<Work>(at address: UnsafePointer<Work>) -> UnsafePointer<Task<Value>>? {
        guard Work.self == Task<Value>.self else { return nil }
        return UnsafeRawPointer(address).assumingMemoryBound(to: Task<Value>.self)
    }

    /// Whether `task` is a ``ThrowableTask`` of which no other copy exists.
    @inlinable
    static func isLastThrowableCopy<Work>(_ task: inout Work) -> Bool {
        guard Work.self == ThrowableTask<Value>.self else { return false }
        // Rebound rather than cast: a cast would copy the task, and the copy would count.
        return withUnsafeMutablePointer(to: &task) { pointer in
            pointer.withMemoryRebound(to: ThrowableTask<Value>.self, capacity: 1) {
                isKnownUniquelyReferenced(&$0.pointee.body)
            }
        }
    }

    /// The body of a ``ThrowableTask``.
    @inlinable
    var body: TaskBody<Value>? {
        if case .throwable(let body) = self { return body }
        return nil
    }

    /// The run a future's waiters listen to.
    @inlinable
    var listenedRun: FutureState<Value>? {
        if case .listening(let state) = self { return state }
        return nil
    }

    /// Whether starting a run only registers a callback and never blocks: a future, or a
    /// chain that begins by listening to one. Such a run may always start on the waiting thread.
    @inlinable
    var startsByListening: Bool {
        switch self {
        case .throwable(let body): return body.startsByListening
        case .listening: return true
        case .plain, .foreign: return false
        }
    }

    /// Whether a run must watch the handler it gives the task's `action(completion:)`: only
    /// for a type of the user's own. Taskig's own kinds watch the handler of their callback
    /// work themselves, and a future only listens, keeping its handler until it completes.
    @inlinable
    var needsHandlerWatched: Bool {
        if case .foreign = self { return true }
        return false
    }

    /// The queue the task's work runs on, with its kind; `executionQueue` is asked only of a
    /// type of the user's own. For a future, the queue its work was sent to, if it has work.
    @inlinable
    func workQueue(else executionQueue: @autoclosure () -> DispatchQueue) -> WorkQueue? {
        switch self {
        case .throwable(let body): return body.workQueue
        case .plain(let task): return task.workQueue
        case .listening(let state): return state.workQueue
        case .foreign: return WorkQueue(executionQueue())
        }
    }

    /// Whether the task is cancelled for good: then none of its runs starts. `task` is asked
    /// only when it is not a ``ThrowableTask``.
    @inlinable
    func isCancelledForGood<Work>(_ task: Work) -> Bool {
        body?.isCancelled ?? (task as? CancellableTaskType)?.isCancelled ?? false
    }
}

/// A kind of task of Taskig's own: it tells ``TaskKind/of(_:)`` what it is.
@usableFromInline
protocol KindOfTask {
    /// The kind of `task`, which is of this type, whose result type is `Value`.
    static func kind<Work, Value>(of task: Work, producing _: Value.Type) -> TaskKind<Value>
}
