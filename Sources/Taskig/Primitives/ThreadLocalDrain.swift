/// Work that a ``ThreadLocalDrain`` runs: running it may hand the same drain more items.
protocol DrainItem {
    func run()
}

/// Runs work that sets off more work of its kind one item after another, on the calling
/// thread, instead of one inside another.
///
/// Delivering a completion can complete the next cell, and freeing a body of a chain frees
/// the body it continues: done as calls, a chain of a million of them would nest a million
/// frames. A drain makes that a loop. The first item on a
/// thread runs at once, and the thread stays to run, in order, every item queued while it ran;
/// an item that arrives while another runs on its thread is only queued. The items then run
/// on the stack of the first, as swift-nio's event loop runs the callbacks of its futures.
///
/// Each thread keeps its queue for its life (made on first use, released when the thread
/// ends), so an item that runs at once, or that one item sets off, costs no allocation.
struct ThreadLocalDrain<Item: DrainItem>: Sendable {
    /// Per thread: its ``Queue``, retained.
    private let slot = ThreadLocalSlot(releasesObjectAtThreadExit: true)

    /// The items queued on one thread, and whether one is running there.
    ///
    /// Its fields are only ever used by their own thread, so they skip the run-time check for
    /// overlapping accesses, which would cost more than queueing an item.
    final class Queue {
        @exclusivity(unchecked) fileprivate var isRunning = false
        /// The next item, when no other is queued: most items set off one more (the next link
        /// of a chain), and a field is cheaper than the array.
        @exclusivity(unchecked) private var first: Item?
        /// The items after `first`, from `next` on.
        @exclusivity(unchecked) private var rest: [Item] = []
        @exclusivity(unchecked) private var next = 0

        /// Queues `item` after the others.
        func append(_ item: Item) {
            if first == nil, rest.isEmpty {
                first = item
            } else {
                rest.append(item)
            }
        }

        /// Runs the queued items, including those they queue in turn.
        fileprivate func runQueued() {
            while true {
                if let item = first.take() {
                    item.run()
                } else if next < rest.count {
                    let item = rest[next]
                    next += 1
                    // Run items are dropped as the queue empties: a loop a million levels deep
                    // queues one item per level and keeps no more than what is still to run.
                    if next == rest.count {
                        rest.removeAll(keepingCapacity: true)
                        next = 0
                    }
                    item.run()
                } else {
                    return
                }
            }
        }

        /// Frees the array of a run that queued more than one item at a time, once the run is
        /// over: a thread keeps no memory for a fan-out it ran once.
        fileprivate func dropStorage() {
            if rest.capacity > 0 { rest = [] }
        }
    }

    /// This thread's queue, made on first use; the slot holds it.
    private var queue: Unmanaged<Queue> {
        if let pointer = slot.pointer { return Unmanaged<Queue>.fromOpaque(pointer) }
        let queue = Unmanaged.passRetained(Queue())
        slot.pointer = queue.toOpaque()
        return queue
    }

    /// Runs `item` now, and then what it queues; queues it when an item is running on this
    /// thread already.
    func run(_ item: Item) {
        run({ item.run() }, orQueue: { $0.append(item) })
    }

    /// Runs `body` now, as the first item of this thread, and then what it queues; when an item
    /// is running on this thread already, calls `queueInstead` to queue the items `body` stands
    /// for, with no allocation for the ones that need none.
    func run(_ body: () -> Void, orQueue queueInstead: (Queue) -> Void) {
        // Not retained: the slot holds the queue for the thread's life, and counting references
        // to it for every item would cost as much as the queueing.
        queue._withUnsafeGuaranteedRef { queue in
            if queue.isRunning { return queueInstead(queue) }
            queue.isRunning = true
            body()
            queue.runQueued()
            queue.dropStorage()
            queue.isRunning = false
        }
    }

    /// Runs the items queued on this thread, for an item that is about to block until one of
    /// them has run. Nothing when no item runs here.
    func runQueued() {
        guard let pointer = slot.pointer else { return }
        Unmanaged<Queue>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.runQueued() }
    }
}
