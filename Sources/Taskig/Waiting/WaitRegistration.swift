import Dispatch
import Foundation

/// A wait of the calling thread, published in its ``ThreadRecord`` while it lasts, for the
/// wait-for cycle check, the wait report and the stall monitor.
///
/// Only a wait that parks, or that runs a future's work in place, registers: it is about to
/// sleep for at least a wake-up's time, and registering costs a small part of that. Nothing
/// it does takes a lock that other threads' waits share: the thread's own record, and the
/// records it reads in the cycle check, one at a time.
@usableFromInline
struct WaitRegistration {
    let record: ThreadRecord
    let id: UInt64

    /// Publishes a wait of the calling thread for `subject`, which parks it (`parks`) or runs
    /// the awaited work in place. Returns the deadlock the wait would close, in which case
    /// nothing stays published.
    @usableFromInline
    static func begin(_ subject: WaitSubject, parks: Bool) -> Result<WaitRegistration, TaskigError> {
        let record = ThreadRecords.current
        let isInsideSwiftTask = parks && ThreadIdentity.isInsideSwiftTask
        if isInsideSwiftTask { SwiftTaskWaitWarning.warnOnce(at: subject.site) }
        let held = CurrentRun.heldHere
        let wait = ParkedWait(
            // A waiter running the awaited work itself cannot be released before it returns.
            id: 0, subject: subject, heldRuns: held.runs, othersMayEndIt: parks && held.insideLaneOfAnyTask,
            since: DispatchTime.now().uptimeNanoseconds,
            parks: parks, isInsideSwiftTask: isInsideSwiftTask,
            heldQueue: isInsideSwiftTask ? nil : ThreadIdentity.currentQueueLabel)
        var published = wait
        let id = record.begin { id in
            published = wait.with(id: id)
            return published
        }
        if let cycle = WaitCycle.closed(by: published, in: record) {
            record.end(id)
            return .failure(.deadlock(cycle.waits))
        }
        if parks { StallMonitor.watch() }
        return .success(WaitRegistration(record: record, id: id))
    }

    /// The wait has ended.
    @usableFromInline
    func end() {
        record.end(id)
    }
}

extension ParkedWait {
    /// The same wait under `id`.
    func with(id: UInt64) -> ParkedWait {
        ParkedWait(
            id: id, subject: subject, heldRuns: heldRuns, othersMayEndIt: othersMayEndIt, since: since, parks: parks,
            isInsideSwiftTask: isInsideSwiftTask, heldQueue: heldQueue)
    }
}

extension WaitCycle {
    /// The cycle's waits as the error reports them: each one's work waits in the next one.
    var waits: [WaitReport.Wait] {
        let now = DispatchTime.now().uptimeNanoseconds
        return steps.indices.map { index in
            let step = steps[index]
            let next = steps[(index + 1) % steps.count]
            return WaitReport.Wait(
                thread: step.thread, callSite: step.wait.subject.site.callSite,
                waitsFor: step.wait.subject.work.description, seconds: Double(now &- step.wait.since) / 1e9,
                work: .waiting(thread: next.thread, callSite: next.wait.subject.site.callSite), hasDeadline: false,
                isInsideSwiftTask: step.wait.isInsideSwiftTask, heldQueue: step.wait.heldQueue, note: nil)
        }
    }
}
