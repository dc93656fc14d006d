import Dispatch
import Foundation

extension WaitReport {
    /// A snapshot of every Taskig wait now.
    public static func current() -> WaitReport {
        let snapshots = ThreadRecords.all.filter { $0.isInUse.load(ordering: .relaxed) }.map(\.snapshot)
        let now = DispatchTime.now().uptimeNanoseconds
        let waits = snapshots.flatMap { snapshot in
            snapshot.waits.filter(\.parks).map { wait in
                Wait(wait, of: snapshot.thread, at: now, among: snapshots)
            }
        }
        return WaitReport(
            date: Date(), waits: waits.sorted { $0.seconds > $1.seconds }, workers: Workers(WorkerPool.shared.counts),
            collections: CollectionWaits.inProgress)
    }
}

extension WaitReport.Workers {
    init(_ counts: (threads: Int, busy: Int, idle: Int, queuedJobs: Int, limit: Int)) {
        self.init(
            threads: counts.threads, busy: counts.busy, idle: counts.idle, queuedJobs: counts.queuedJobs,
            limit: counts.limit)
    }
}

extension WaitReport.Wait {
    /// `wait`, a wait of `thread`, as the report shows it at `now` among the other threads'
    /// `snapshots`.
    init(
        _ wait: ParkedWait, of thread: WaitReport.ThreadIdentity, at now: UInt64,
        among snapshots: [ThreadRecord.Snapshot]
    ) {
        let work = WaitReport.Whereabouts(of: wait, at: now, among: snapshots)
        self.init(
            thread: thread, callSite: wait.subject.site.callSite, waitsFor: wait.subject.work.description,
            seconds: Double(now &- wait.since) / 1e9, work: work, hasDeadline: wait.subject.hasDeadline,
            isInsideSwiftTask: wait.isInsideSwiftTask, heldQueue: wait.heldQueue,
            note: Self.note(for: wait, work: work))
    }

    /// Why the wait may never end, when the report can tell.
    static func note(for wait: ParkedWait, work: WaitReport.Whereabouts) -> String? {
        if case .queued(let queue) = work, let held = wait.heldQueue,
            case .task(_, let workQueue?, _) = wait.subject.work,
            !workQueue.isGlobal
        {
            return "If queue \(queue) targets '\(held)' (directly or through other queues), this wait can never "
                + "end: the work waits behind the block of '\(held)' that waits for it. Taskig cannot see a queue's "
                + "target; give the task '\(held)' itself as its queue, or wait outside that queue "
                + "(see Waiting safely)."
        }
        if wait.isInsideSwiftTask {
            return "A blocking wait inside a Swift task holds one of the few threads of Swift's cooperative pool; "
                + "if the work needs that pool, it may never run. Use 'try await task.value' in async code."
        }
        if case .waitingForCallback = work {
            return "The task's code has returned and its completion handler has not been called yet."
        }
        return nil
    }
}

extension WaitReport.Whereabouts {
    /// Where the work `wait` waits for is, among `snapshots`.
    init(of wait: ParkedWait, at now: UInt64, among snapshots: [ThreadRecord.Snapshot]) {
        if case .collection = wait.subject.work {
            self = .collection
            return
        }
        guard let run = wait.subject.target else {
            self = .unknown
            return
        }
        if run.hasEnded {
            self = .finished
            return
        }
        for snapshot in snapshots {
            if let holder = snapshot.holder(of: run) {
                self = .waiting(thread: snapshot.thread, callSite: holder.subject.site.callSite)
                return
            }
        }
        let bits = ThreadRecord.bits(of: run)
        if let running = snapshots.first(where: { $0.runningRun == bits }) {
            self = .running(thread: running.thread, seconds: Double(now &- running.runningSince) / 1e9)
        } else if run.waitingFor != nil {
            self = .waitingForAnotherRun
        } else if run.hasStarted {
            self = .waitingForCallback
        } else if case .task(_, let queue?, _) = wait.subject.work {
            self = .queued(queue: queue.isGlobal ? "Taskig's threads" : "'\(queue.dispatchQueue.label)'")
        } else {
            self = .unknown
        }
    }
}

extension WaitedWork: CustomStringConvertible {
    /// The work in a few words: "a Future<Int> started at Tool/main.swift:8".
    @usableFromInline
    var description: String {
        switch self {
        case .task(let type, let queue, let startedAt):
            var text = "a \(_typeName(type, qualified: false))"
            if let startedAt { text += " started at \(startedAt.callSite)" }
            if let queue {
                switch queue.kind {
                case .globalBackground, .globalUtility, .globalDefault, .globalUserInitiated, .globalUserInteractive:
                    break
                case .main: text += " on the main queue"
                case .other: text += " on queue '\(queue.dispatchQueue.label)'"
                }
            }
            return text
        case .collection(let collection, let nextOutcomeOnly):
            let snapshot = collection.snapshot(seconds: 0)
            return nextOutcomeOnly
                ? "the next outcome of the completions loop at \(snapshot.callSite)"
                : "the tasks of \(snapshot.operation) (\(snapshot.settled) of \(snapshot.total) settled)"
        case .tasks(let count):
            return "\(count) tasks of awaitAll(_:_:…)"
        }
    }
}
