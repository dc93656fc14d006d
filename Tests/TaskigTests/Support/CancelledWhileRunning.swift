import Foundation

@testable import Taskig

/// Bodies for the tests of a collection wait whose task is cancelled for good while it runs
/// ("Cancelling tasks"): the caller of the wait must not wait for a body that runs on another thread.
///
/// A body that runs on the waiting thread (the lane a caller runs itself) polls its run and
/// returns once it sees the cancellation, or once ``letTheWaitersOwnReturn()`` when it is to
/// be a task that nobody cancels. Any other body ignores the cancellation and returns only once
/// the test calls ``letTheOthersReturn()``, after the wait has returned: a wait that waited for
/// it would hang until the watchdog reports it. Nothing here depends on how long anything takes.
final class CancelledWhileRunning: Sendable {
    private let waiter = LockedValue<ObjectIdentifier?>(nil)
    private let othersMayReturn = Gate()
    private let ownMayReturn = Gate()
    private let startedElsewhere = LockedValue<[Int]>([])
    private let someStartedElsewhere = Gate()
    private let ownStarted = Gate()

    deinit { letTheOthersReturn() }

    /// Notes the calling thread as the waiter's: call it where the wait is called.
    func waitHere() {
        waiter.set(ObjectIdentifier(Thread.current))
    }

    /// The work of the task at `index`.
    func body(_ index: Int, ownPollsCancellation: Bool = true) -> Int {
        guard waiter.value == ObjectIdentifier(Thread.current) else {
            startedElsewhere.update { $0.append(index) }
            someStartedElsewhere.open()
            othersMayReturn.wait(upTo: 60 * timingSlack)
            return index
        }
        ownStarted.open()
        if ownPollsCancellation {
            RunObserver().sleep(60 * timingSlack)
        } else {
            ownMayReturn.wait(upTo: 60 * timingSlack)
        }
        return index
    }

    /// Waits until a body runs on a thread other than the waiter's, and returns the index of the
    /// first one that did (a hang guard: only a lane that never starts waits it out).
    func firstStartedElsewhere() -> Int? {
        someStartedElsewhere.wait(upTo: 10 * timingSlack) ? startedElsewhere.value.first : nil
    }

    /// Waits until a body runs on the waiter's thread (a hang guard, as above).
    func waitUntilTheWaitersOwnStarted() -> Bool {
        ownStarted.wait(upTo: 10 * timingSlack)
    }

    func letTheWaitersOwnReturn() {
        ownMayReturn.open()
    }

    func letTheOthersReturn() {
        othersMayReturn.open()
    }
}
