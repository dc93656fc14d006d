import Dispatch
import Foundation
import Synchronization

/// What Taskig needs to know about a queue to decide where a task's work may run.
///
/// `DispatchQueue` has no identity that survives on Linux (each `DispatchQueue.global()` call
/// returns a new wrapper, and queues are not `Equatable` there), so Taskig marks the queues
/// it must recognise with `setSpecific`: the root queues and the main queue with their kind
/// (on Darwin, where they are singletons, it compares them by identity instead), and every
/// other queue, the first time it matters, with a tag of its own.
@usableFromInline
enum QueueAffinity {
    @usableFromInline
    enum Kind: UInt8, Sendable {
        /// `DispatchQueue.main`: serial, and on a command-line program's main thread it can
        /// be serviced by running the main run loop.
        case main
        /// Any other queue. It may be serial, so its work must run on it.
        case other
        /// A global root queue, one case for each quality of service, in the order of
        /// ``WorkQoS``: concurrent, no thread affinity, so work may run on any thread. Kept
        /// last, so that asking whether a kind is global, on the way of every wait, is one
        /// comparison.
        case globalBackground, globalUtility, globalDefault, globalUserInitiated, globalUserInteractive

        /// The global queue of `qos`; of the default one for ``WorkQoS/unspecified``.
        @inlinable
        static func global(_ qos: WorkQoS) -> Kind {
            qos == .unspecified ? .globalDefault : Kind(rawValue: qos.rawValue &+ 1)!
        }

        /// `DispatchQueue.global()`'s.
        @inlinable
        static var defaultGlobal: Kind { .globalDefault }

        /// Whether the queue is a global, concurrent one.
        @inlinable
        var isGlobal: Bool { rawValue >= Kind.globalBackground.rawValue }

        /// The quality of service of a global queue; ``WorkQoS/unspecified`` for any other.
        @inlinable
        var qos: WorkQoS { isGlobal ? WorkQoS(rawValue: rawValue &- 1)! : .unspecified }
    }

    /// The global queue Taskig itself uses for work with no queue of its own.
    @usableFromInline
    static let defaultGlobalQueue = DispatchQueue.global()

    /// The kind of `queue`. A queue of kind ``Kind/other`` is tagged on the way, so that a
    /// task made for it finds its tag (see ``handOff(of:kind:)``).
    ///
    /// Global queues are recognized before anything is read from the queue: Darwin's
    /// `setSpecific` refuses them, so a global queue taken for another queue would crash when
    /// tagged.
    @usableFromInline
    static func kind(of queue: DispatchQueue) -> Kind {
        if Platform.dispatchQueuesHaveIdentity {
            if queue === DispatchQueue.main { return .main }
            for (global, qos) in globalQueues where queue === global { return .global(qos) }
            // A root queue that no `global(qos:)` returns (an overcommitting one).
            if queue.label.utf8.starts(with: rootQueueLabelPrefix.utf8) { return .defaultGlobal }
        } else {
            // Reading a specific is much cheaper than building the label as a `String`.
            if queuesAreMarked, let kind = queue.getSpecific(key: kindKey)?.kind { return kind }
        }
        if queue.getSpecific(key: queueTagKey) == nil { _ = tagged(queue) }
        return .other
    }

    /// The qualities of service of the global queues, each with the queue that
    /// `DispatchQueue.global(qos:)` returns for it; `.unspecified` gives the default queue. On
    /// Linux, `.userInteractive` gives the user-initiated queue (its label says so), so that
    /// one comes later: the queue's mark is the last one set (see ``queuesAreMarked``).
    private static let qualities: [(DispatchQoS.QoSClass, WorkQoS)] = [
        (.unspecified, .default), (.userInteractive, .userInteractive), (.background, .background),
        (.utility, .utility), (.default, .default), (.userInitiated, .userInitiated),
    ]

    /// Where queues have an identity: every global queue, with its quality of service.
    private static let globalQueues: [(DispatchQueue, WorkQoS)] = qualities.map { (.global(qos: $0), $1) }

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
        case .globalBackground, .globalUtility, .globalDefault, .globalUserInitiated, .globalUserInteractive:
            return false
        case .other:
            let tag = queue.getSpecific(key: queueTagKey) ?? tagged(queue)
            // Under the tag's own key, which no other queue sets, the lookup reaches the
            // queue from a queue that targets it even when that queue has a tag too.
            return DispatchQueue.getSpecific(key: tag.ownKey) === tag
        }
    }

    /// The hand-off of the queue the calling code holds (see ``QueueHandOff``), when Taskig has
    /// tagged it: the innermost one, or the main queue on the main thread outside any other.
    @usableFromInline
    static var heldHandOff: QueueHandOff? {
        _ = mainQueueTag
        return DispatchQueue.getSpecific(key: queueTagKey)?.handOff
    }

    /// The hand-off of `queue`, of `kind` (not a global queue), through which Taskig sends it
    /// work.
    @usableFromInline
    static func handOff(of queue: DispatchQueue, kind: Kind) -> QueueHandOff {
        if kind == .main { return mainQueueTag.handOff }
        return (queue.getSpecific(key: queueTagKey) ?? tagged(queue)).handOff
    }

    private static func tagged(_ queue: DispatchQueue) -> QueueTag {
        let tag = QueueTag()
        // The own key first: a tag that can be read is complete.
        queue.setSpecific(key: tag.ownKey, value: tag)
        queue.setSpecific(key: queueTagKey, value: tag)
        // A waiter may hold this queue: it looks again (see ``ServedQueues``).
        let watches = tagWatches.withLock { watches in
            taggings.add(1, ordering: .releasing)
            return watches
        }
        for watch in watches { watch.wake() }
        // Re-read: when two threads tag the same queue at once, the last write is the tag.
        return queue.getSpecific(key: queueTagKey)!
    }

    /// Whether Taskig has tagged `queue`: never a global queue, which Darwin refuses to tag.
    static func isTagged(_ queue: DispatchQueue) -> Bool {
        queue.getSpecific(key: queueTagKey) != nil
    }

    /// How many queues have been tagged so far.
    @usableFromInline
    static let taggings = Atomic<UInt>(0)

    /// The waits to wake when a queue is first tagged.
    private static let tagWatches = LockedState<[TagWatch]>([])

    /// A wait that is woken when a queue is first tagged, and tells whether one was since it
    /// last asked.
    @usableFromInline
    final class TagWatch: Sendable {
        let wake: QueueHandOff.Wake
        let seen: Atomic<UInt>

        init(wake: @escaping QueueHandOff.Wake, seen: UInt) {
            self.wake = wake
            self.seen = Atomic(seen)
        }

        /// Whether a queue was tagged since the watch began or last asked.
        @usableFromInline
        func sawNewTags() -> Bool {
            let now = taggings.load(ordering: .acquiring)
            return seen.exchange(now, ordering: .relaxed) != now
        }
    }

    /// Wakes a wait with `wake` whenever a queue is first tagged, until ``stopWatching(_:)``.
    @usableFromInline
    static func watchTags(wake: @escaping QueueHandOff.Wake) -> TagWatch {
        tagWatches.withLock { watches in
            let watch = TagWatch(wake: wake, seen: taggings.load(ordering: .relaxed))
            watches.append(watch)
            return watch
        }
    }

    @usableFromInline
    static func stopWatching(_ watch: TagWatch) {
        tagWatches.withLock { watches in watches.removeAll { $0 === watch } }
    }

    private static let rootQueueLabelPrefix = "com.apple.root."
    private static let queueTagKey = DispatchSpecificKey<QueueTag>()
    private static let mainQueueTag: QueueTag = {
        let tag = QueueTag()
        DispatchQueue.main.setSpecific(key: queueTagKey, value: tag)
        return tag
    }()

    private static let kindKey = DispatchSpecificKey<KindMark>()
    /// Marks the root queues of every quality of service with their kind, and the main queue,
    /// once, before the first lookup (where queues have no identity). A queue that two classes
    /// give keeps the mark of the later one in ``qualities``.
    private static let queuesAreMarked: Bool = {
        for (qosClass, qos) in qualities {
            DispatchQueue.global(qos: qosClass).setSpecific(key: kindKey, value: KindMark(.global(qos)))
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
    /// The work sent to the queue that a waiting holder may run instead.
    let handOff: QueueHandOff

    init() {
        handOff = QueueHandOff()
    }
}

/// The kind Taskig records in the root queues and the main queue.
final class KindMark: Sendable {
    let kind: QueueAffinity.Kind

    init(_ kind: QueueAffinity.Kind) {
        self.kind = kind
    }
}
