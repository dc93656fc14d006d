import Dispatch
import Foundation

/// What Taskig needs to know about a queue to decide where a task's work may run.
///
/// `DispatchQueue` has no identity that survives on Linux (each `DispatchQueue.global()` call
/// returns a new wrapper, and queues are not `Equatable` there), so Taskig marks the queues
/// it must recognise with `setSpecific`: the root queues and the main queue with their kind,
/// and every other queue, the first time it matters, with a tag of its own.
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

    /// The global queue Taskig itself uses for work with no queue of its own.
    @usableFromInline
    static let defaultGlobalQueue = DispatchQueue.global()

    /// `queue` and its kind, unless it is a global queue.
    @inlinable
    static func nonGlobal(_ queue: DispatchQueue) -> (queue: DispatchQueue, kind: Kind)? {
        let kind = kind(of: queue)
        return kind == .globalConcurrent ? nil : (queue, kind)
    }

    /// The kind of `queue`. A queue of kind ``Kind/other`` is tagged on the way (see
    /// ``mayHoldATaskQueue``).
    @usableFromInline
    static func kind(of queue: DispatchQueue) -> Kind {
        #if canImport(Darwin)
            // Darwin's root queues are singletons, and its `setSpecific` refuses them.
            if queue === DispatchQueue.main { return .main }
            if queue.label.utf8.starts(with: rootQueueLabelPrefix.utf8) { return .globalConcurrent }
        #else
            // Reading a specific is much cheaper than building the label as a `String`.
            if queuesAreMarked, let kind = queue.getSpecific(key: kindKey)?.kind { return kind }
        #endif
        if queue.getSpecific(key: queueTagKey) == nil { _ = tagged(queue) }
        return .other
    }

    /// Whether the calling code may hold a queue that makes a wait run tasks in place: a queue
    /// Taskig has tagged (one that some task was made for or that some wait asked about), but
    /// not the main queue on the main thread, which keeps the main queue serviced while it
    /// waits. (Under `dispatchMain()` a main-queue block can run on another thread; there the
    /// main queue counts.) A thread for which this is false holds none of the queues of the
    /// tasks made so far.
    @usableFromInline
    static var mayHoldATaskQueue: Bool {
        let tag = mainQueueTag
        guard let current = DispatchQueue.getSpecific(key: queueTagKey) else { return false }
        return current !== tag || !MainThread.isCurrent
    }

    /// Whether the calling code runs on the main queue (or is the main thread itself).
    @usableFromInline
    static var isOnMainQueue: Bool {
        // The tag must exist before it is looked up, or the first lookup from a main-queue
        // block (under `dispatchMain()`) would miss it.
        let tag = mainQueueTag
        return MainThread.isCurrent || DispatchQueue.getSpecific(key: queueTagKey) === tag
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
            // Under the tag's own key, which no other queue sets, the lookup reaches the
            // queue from a queue that targets it even when that queue has a tag too.
            return DispatchQueue.getSpecific(key: tag.ownKey) === tag
        }
    }

    private static func tagged(_ queue: DispatchQueue) -> QueueTag {
        let tag = QueueTag()
        // The own key first: a tag that can be read is complete.
        queue.setSpecific(key: tag.ownKey, value: tag)
        queue.setSpecific(key: queueTagKey, value: tag)
        // Re-read: when two threads tag the same queue at once, the last write is the tag.
        return queue.getSpecific(key: queueTagKey)!
    }

    private static let rootQueueLabelPrefix = "com.apple.root."
    private static let queueTagKey = DispatchSpecificKey<QueueTag>()
    private static let mainQueueTag: QueueTag = {
        let tag = QueueTag()
        DispatchQueue.main.setSpecific(key: queueTagKey, value: tag)
        return tag
    }()

    private static let kindKey = DispatchSpecificKey<KindMark>()
    /// Marks the root queues of every quality of service and the main queue with their kind,
    /// once, before the first lookup.
    private static let queuesAreMarked: Bool = {
        let qualities: [DispatchQoS.QoSClass] = [
            .background, .utility, .default, .userInitiated, .userInteractive, .unspecified,
        ]
        for quality in qualities {
            DispatchQueue.global(qos: quality).setSpecific(key: kindKey, value: KindMark(.globalConcurrent))
        }
        DispatchQueue.main.setSpecific(key: kindKey, value: KindMark(.main))
        return true
    }()
}

/// The identity Taskig gives a queue; only compared by reference.
final class QueueTag: Sendable {
    /// The key under which the tagged queue also holds this tag. The shared key cannot tell
    /// whether code runs on a queue that targets this one: a lookup stops at the first queue
    /// with a value, and a target's tag is hidden by the tag of the queue that targets it.
    let ownKey = DispatchSpecificKey<QueueTag>()
}

/// The kind Taskig records in the root queues and the main queue.
final class KindMark: Sendable {
    let kind: QueueAffinity.Kind

    init(_ kind: QueueAffinity.Kind) {
        self.kind = kind
    }
}
