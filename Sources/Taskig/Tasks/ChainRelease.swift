/// Releases composed bodies one after another instead of one inside another.
///
/// A composed body holds the body it continues; freeing the last step of a chain of a
/// million would free the one before it inside its own `deinit`, and so on, a million frames
/// deep. So a body releases what it continues through here: the first release on a thread
/// does it and then goes on with whatever the frees it causes hand back, while a release made
/// during that only queues its object.
enum ChainRelease {
    /// The objects queued on one thread, kept for the thread's life so that releasing a
    /// chain allocates nothing.
    ///
    /// Its fields are only ever used by their own thread, so they skip the run-time check for
    /// overlapping accesses, which would cost more than the rest of releasing a body.
    private final class Pending {
        /// The first object queued; most releases queue one (a body's upstream) before the
        /// loop takes it, and a field is cheaper than the array.
        @exclusivity(unchecked) var first: Unmanaged<AnyObject>?
        @exclusivity(unchecked) var objects: [Unmanaged<AnyObject>] = []
        @exclusivity(unchecked) var isReleasing = false
    }

    private static let slot = ThreadLocalSlot(releasesObjectAtThreadExit: true)

    /// This thread's queue, made on first use; the slot holds it.
    private static var pending: Unmanaged<Pending> {
        if let pointer = slot.pointer { return Unmanaged<Pending>.fromOpaque(pointer) }
        let pending = Unmanaged.passRetained(Pending())
        slot.pointer = pending.toOpaque()
        return pending
    }

    /// Releases `object` once, now or after the release this thread is busy with.
    static func release(_ object: Unmanaged<AnyObject>) {
        // Not retained: the slot holds the queue for the thread's life, and counting references
        // to it for every body released would cost as much as the queueing.
        pending._withUnsafeGuaranteedRef { pending in
            if pending.isReleasing {
                if pending.first == nil { pending.first = object } else { pending.objects.append(object) }
                return
            }
            pending.isReleasing = true
            object.release()
            while true {
                if let next = pending.first {
                    pending.first = nil
                    next.release()
                } else if let next = pending.objects.popLast() {
                    next.release()
                } else {
                    break
                }
            }
            pending.isReleasing = false
        }
    }
}
