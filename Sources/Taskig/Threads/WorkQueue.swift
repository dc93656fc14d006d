import Dispatch

/// The queue a task's work runs on, with what Taskig knows of it.
@usableFromInline
struct WorkQueue: Sendable {
    /// `nil` for the default global queue, which then needs no reference counted.
    @usableFromInline
    let queue: DispatchQueue?
    @usableFromInline
    let kind: QueueAffinity.Kind

    @inlinable
    init(_ queue: DispatchQueue?, kind: QueueAffinity.Kind) {
        self.queue = queue
        self.kind = kind
    }

    /// `queue`, whose kind is asked here.
    @inlinable
    init(_ queue: DispatchQueue) {
        self.init(queue, kind: QueueAffinity.kind(of: queue))
    }

    @inlinable
    var dispatchQueue: DispatchQueue { queue ?? QueueAffinity.defaultGlobalQueue }

    /// Whether the queue is a global, concurrent one.
    @inlinable
    var isGlobal: Bool { kind.isGlobal }
}
