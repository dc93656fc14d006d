/// The queues a waiting thread holds and serves (rule 2 of "Waiting safely" in the
/// documentation): their hand-offs give it the Taskig work sent to them while it waits (see
/// ``QueueHandOff``).
///
/// A thread finds the queue it holds through the tag Taskig gave that queue, and a queue is
/// tagged the first time a task is made for it, which may happen on another thread while this
/// one waits (a `flatMap`'s inner task made at run time, for a queue no task was made for
/// before). So a waiter that is not one of Taskig's workers also asks to be woken when a queue
/// is first tagged, and then looks again at what it holds: the innermost queue, and the
/// queues it targets, may each have a tag by then.
@usableFromInline
struct ServedQueues {
    @usableFromInline
    var handOffs: [QueueHandOff]
    @usableFromInline
    let wake: QueueHandOff.Wake
    @usableFromInline
    let watch: QueueAffinity.TagWatch?

    /// Begins serving what this thread holds now; `wake` wakes it for work handed over.
    @inlinable
    init(wake: @escaping QueueHandOff.Wake) {
        self.wake = wake
        // Watching first, then looking: a queue tagged in between is found either way.
        watch = WorkerThread.isCurrent ? nil : QueueAffinity.watchTags(wake: wake)
        handOffs = QueueAffinity.heldHandOff.map { [$0] } ?? []
        for handOff in handOffs { handOff.beginWaiting(wake: wake) }
    }

    /// Runs the work handed to this thread, after looking again at what it holds when a queue
    /// was tagged meanwhile.
    @inlinable
    mutating func runHandedJobs() {
        if let watch, watch.sawNewTags(), let held = QueueAffinity.heldHandOff,
            !handOffs.contains(where: { $0 === held })
        {
            held.beginWaiting(wake: wake)
            handOffs.append(held)
        }
        for handOff in handOffs { handOff.runHandedJobs() }
    }

    /// Ends the wait: stops serving, innermost first.
    @inlinable
    func end() {
        for handOff in handOffs.reversed() { handOff.endWaiting() }
        if let watch { QueueAffinity.stopWatching(watch) }
    }
}
