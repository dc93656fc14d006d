/// A cycle of waits, each waiting for work that the next one holds up, back to the first:
/// none of them can ever end (`TaskigError.deadlock` in the documentation's "Troubleshooting").
///
/// The graph's nodes are runs and waits. A wait that only its target's outcome can end (see
/// ``WaitSubject/endsOnlyWithTarget``) points at that run. A run points at the wait in which
/// its work waits, on whichever thread it is: the outermost wait of that thread that holds it
/// up (see ``ParkedWait/heldRuns``). A run whose work holds no thread while it waits for
/// another run (a composed run listening to a future) points at that run. A cycle counts runs,
/// not threads: a future's work that runs its peer's work in place, on the same thread, and
/// waits there for the first future, closes one on a single thread.
///
/// The wait that closes a cycle finds it as it parks, after publishing itself: every other
/// wait of the cycle is parked already, so it is published, and a wait that closes a cycle at
/// the same moment on another thread finds it too. What the search reads is weakly
/// consistent, so the cycle is checked once more at the end: each of its other waits is still
/// the same wait of its thread, and no run in it has ended. A wait parked on a run whose work
/// is parked in turn can end only when that work goes on, so a cycle that passes this check is
/// one, however the threads were scheduled.
struct WaitCycle {
    /// One wait of the cycle.
    struct Step {
        let thread: WaitReport.ThreadIdentity
        let record: ThreadRecord
        let wait: ParkedWait
    }

    /// The closing wait first, then each wait that the one before it waits for.
    let steps: [Step]

    /// The cycle that `closing`, just published in the calling thread's `record`, closes.
    static func closed(by closing: ParkedWait, in record: ThreadRecord) -> WaitCycle? {
        guard closing.isEdge, let start = closing.subject.target else { return nil }
        let snapshots = ThreadRecords.all.map(\.snapshot)
        guard let mine = snapshots.first(where: { $0.record === record }) else { return nil }
        // A breadth-first search from the closing wait's target: each step found, and the one
        // it was reached from (-1: the closing wait).
        var steps = [Step(thread: mine.thread, record: record, wait: closing)]
        var reachedFrom = [-1]
        var pending: [(run: Run, from: Int)] = [(start, 0)]
        var seen = Set<ObjectIdentifier>()
        var next = 0
        while next < pending.count {
            let (run, from) = pending[next]
            next += 1
            guard !run.hasEnded, seen.insert(ObjectIdentifier(run)).inserted else { continue }
            for snapshot in snapshots {
                guard let holder = snapshot.holder(of: run), holder.isEdge else { continue }
                if snapshot.record === record && holder.id == closing.id {
                    let cycle = WaitCycle(steps: path(to: from, in: steps, reachedFrom: reachedFrom))
                    return cycle.isStillClosed ? cycle : nil
                }
                guard let target = holder.subject.target else { continue }
                steps.append(Step(thread: snapshot.thread, record: snapshot.record, wait: holder))
                reachedFrom.append(from)
                pending.append((target, steps.count - 1))
            }
            if let awaited = run.waitingFor { pending.append((awaited, from)) }
        }
        return nil
    }

    /// The steps from the closing wait (index 0) to `last`, in order.
    private static func path(to last: Int, in steps: [Step], reachedFrom: [Int]) -> [Step] {
        var indices: [Int] = []
        var index = last
        while index > 0 {
            indices.append(index)
            index = reachedFrom[index]
        }
        return [steps[0]] + indices.reversed().map { steps[$0] }
    }

    /// Whether every other wait of the cycle is still the same wait of its thread, and no
    /// run it waits for has ended.
    private var isStillClosed: Bool {
        steps.allSatisfy { step in
            guard step.wait.subject.target?.hasEnded == false else { return false }
            return step.record.state.withLock { state in state.waits.contains { $0.id == step.wait.id } }
        }
    }
}
