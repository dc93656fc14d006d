import Dispatch
import Foundation

/// What Taskig needs to know about a queue to decide where a task's work may run.
///
/// `DispatchQueue` has no identity that survives on Linux (each `DispatchQueue.global()` call
/// returns a new wrapper, and queues are not `Equatable` there), so queues are recognised by
/// their label (the root and main queues) or by a tag Taskig stores in them with
/// `setSpecific` (every other queue).
@usableFromInline
enum QueueAffinity {
    @usableFromInline
    enum Kind: Sendable {
        /// `DispatchQueue.main`: serial, and on a command-line program's main thread it can
        /// be serviced by running the main run loop.
        case main
        /// A global root queue: concurrent, no thread affinity, so work may run on any thread.
        case globalConcurrent
        /// Any other queue. It may be serial, so its work must run on it.
        case other
    }

    /// The queue Taskig uses when a task is made with the default `executionQueue`; keeping
    /// one wrapper lets ``kind(of:)`` recognise it without reading its label.
    @usableFromInline
    static let defaultGlobalQueue = DispatchQueue.global()

    @usableFromInline
    static func kind(of queue: DispatchQueue) -> Kind {
        if queue === defaultGlobalQueue { return .globalConcurrent }
        let label = queue.label
        if label == mainQueueLabel { return .main }
        if label.hasPrefix(rootQueueLabelPrefix) { return .globalConcurrent }
        return .other
    }

    /// Whether the calling code runs on the main queue (or is the main thread itself).
    @usableFromInline
    static var isOnMainQueue: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: queueTagKey) === mainQueueTag
    }

    /// Whether the calling code runs on `queue` (or on a queue that targets it).
    @usableFromInline
    static func isCurrent(_ queue: DispatchQueue, kind: Kind) -> Bool {
        switch kind {
        case .main:
            return isOnMainQueue
        case .globalConcurrent:
            return false
        case .other:
            let tag = queue.getSpecific(key: queueTagKey) ?? tagged(queue)
            return DispatchQueue.getSpecific(key: queueTagKey) === tag
        }
    }

    private static func tagged(_ queue: DispatchQueue) -> QueueTag {
        queue.setSpecific(key: queueTagKey, value: QueueTag())
        // Re-read: when two threads tag the same queue at once, the last write is the tag.
        return queue.getSpecific(key: queueTagKey)!
    }

    private static let mainQueueLabel = "com.apple.main-thread"
    private static let rootQueueLabelPrefix = "com.apple.root."
    private static let queueTagKey = DispatchSpecificKey<QueueTag>()
    private static let mainQueueTag: QueueTag = {
        let tag = QueueTag()
        DispatchQueue.main.setSpecific(key: queueTagKey, value: tag)
        return tag
    }()
}

/// The identity Taskig gives a queue; only compared by reference.
final class QueueTag: Sendable {}
