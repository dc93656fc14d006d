import Foundation
import Synchronization
import Testing

@testable import Taskig

/// What a collection's looks count as a lane blocked in its task: only a thread asleep in the
/// task's own code, never one asleep on Taskig's bookkeeping around it.
@Suite struct BatchLookTests {
    /// Where a lane's thread is in a task when it sleeps.
    enum Moment: CaseIterable, Sendable {
        /// In a task whose work is a plain call: its code is all the lane runs.
        case inAPlainCall
        /// Making the run of a task whose work Taskig launches: Taskig's work.
        case makingTheRun
        /// In that task's action.
        case inTheAction
        /// After the action returned, with the outcome still to come: Taskig's work again.
        case afterTheAction

        var isInTheTasksCode: Bool { self == .inAPlainCall || self == .inTheAction }

        func reach(on lane: BatchLane) {
            lane.enterTask()
            guard self != .inAPlainCall else { return }
            lane.userCodeReturned()
            guard self != .makingTheRun else { return }
            lane.userCodeBegins()
            if self == .afterTheAction { lane.userCodeReturned() }
        }
    }

    /// A lane's thread asleep on a lock counts as blocked in its task while the task's own code
    /// runs (the lock is the task's), and not while Taskig makes the task's run or once its
    /// code has returned with the outcome still to come (the lock is Taskig's). The first look
    /// that finds it asleep in the task's code only notes it; the next confirms it.
    @Test(arguments: Moment.allCases)
    func aLaneIsBlockedInATaskOnlyWhileTheTasksOwnCodeRuns(moment: Moment) throws {
        let looks = try looksWhileItsThreadSleeps(on: BatchLane(), at: moment) { look in [look(), look()] }
        #expect(looks == (moment.isInTheTasksCode ? [.asleepInTask, .blocked] : [.notBlocked, .notBlocked]))
    }

    /// A lane found asleep in its task's code at one look, and asleep on Taskig's work at the
    /// next, is not blocked: one instant in the task's code is not enough (under
    /// ThreadSanitizer, whose runtime can put any code to sleep, a lane caught so once opened
    /// a lane beside it, and a batch of 2,000 quick tasks ran on up to 11 threads). Found
    /// asleep in its tasks' code again at the next look, in another task, it is blocked: its
    /// tasks block one after another.
    @Test func aLaneIsBlockedOnlyWhenTwoLooksInARowFindItAsleepInItsTasksCode() throws {
        let lane = BatchLane()
        let looks = try looksWhileItsThreadSleeps(on: lane, at: .inTheAction) { look in
            // Between looks, the lane is marked as its thread would mark it.
            let inItsTask = look()
            lane.userCodeReturned()
            let onTaskigsWork = look()
            lane.leaveTask()
            Moment.inTheAction.reach(on: lane)
            let inTheNextTask = look()
            lane.leaveTask()
            Moment.inTheAction.reach(on: lane)
            return [inItsTask, onTaskigsWork, inTheNextTask, look()]
        }
        #expect(looks == [.asleepInTask, .notBlocked, .asleepInTask, .blocked])
    }

    /// Puts `lane` at `moment` on a thread of its own, which then sleeps on a lock this test
    /// holds, and returns what `looking` found with the look it is given: each look at the
    /// lane's thread 20 ms after the last.
    private func looksWhileItsThreadSleeps(
        on lane: BatchLane, at moment: Moment,
        _ looking: (_ look: () -> BatchLane.LookFinding) -> [BatchLane.LookFinding]
    ) throws -> [BatchLane.LookFinding] {
        let lock = LockedState(())
        let times = LockedState<ThreadTimes?>(nil)
        let inTask = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let looks = try lock.withLock { _ -> [BatchLane.LookFinding] in
            Thread.detachNewThread {
                moment.reach(on: lane)
                times.withLock { $0 = ThreadTimes.ofCurrentThread() }
                inTask.signal()
                lock.withLock { _ in }
                ended.signal()
            }
            inTask.wait()
            let threadTimes = try #require(times.withLock { $0 })
            var lastLook: BatchLane.Look?
            return looking {
                usleep(20_000)
                return lane.look(now: DispatchTime.now().uptimeNanoseconds, times: threadTimes, lastLook: &lastLook)
            }
        }
        ended.wait()
        return looks
    }

    /// 2,000 callback tasks at `concurrency: 200`, whose callbacks come about 5 ms later, while
    /// another thread keeps the batch's roster lock taken most of the time, as
    /// ThreadSanitizer and a loaded machine make it. Every lane that leaves a task pending
    /// sleeps on that lock for a while, and the callbacks settle in bursts. Neither is a task
    /// that blocks: the tasks' own code only hands its handler over without a lock or an
    /// allocation (``HandlerDrop``), so it cannot sleep, and the lanes stay on the threads the
    /// batch starts with: one per core, the caller's among them.
    ///
    /// Peak threads running lanes at once, 12 runs of a debug build: 2–14 when a lane counted
    /// as blocked in its task while it slept on the roster lock, and a burst of settling tasks
    /// each started a lane while another was on its way to a thread; 2–25 with the first fixed
    /// alone; 1–2 with both fixed. When the tasks armed a Dispatch timer instead, a lane asleep
    /// inside Dispatch's timer code was rightly a lane blocked in its task: 3 in 1 of 4 runs
    /// under ThreadSanitizer at a load of 25. Under ThreadSanitizer beside two busy loops, 2 of
    /// 30 runs saw 3 while a `Task` made its watched handler inside the task's code (the
    /// runtime's type lookup and ThreadSanitizer's allocator sleep there); 0 of 60 after.
    @Test func lanesAsleepOnTheBatchsOwnLockOpenNoLanes() async throws {
        let drop = HandlerDrop(count: 2_000)
        let tasks = (0..<2_000).map { index in
            Task<Int> { done in drop.hand(index, done) }
        }
        let deliverer = drop.deliverEvery(milliseconds: 5)
        defer { deliverer.stop() }
        let peakThreads = Atomic(0)
        let values = try await withWatchdog(seconds: 30) { () -> [Int] in
            let slots = UnsafeMutablePointer<Int>.allocate(capacity: tasks.count)
            defer { slots.deallocate() }
            let batch = Batch(
                PlainLaneWork<Task<Int>>.self, tasks: tasks, lanesOn: .global(), concurrency: 200,
                sink: OrderedSlots(base: slots),
                operation: "test", site: StaticCallSite(#fileID, #line))
            let stop = Atomic(false)
            let contenderEnded = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                while !stop.load(ordering: .relaxed) {
                    batch.roster.withLock { state in
                        peakThreads.max(state.threads, ordering: .relaxed)
                        usleep(2_000)
                    }
                    usleep(20)
                }
                contenderEnded.signal()
            }
            batch.runAndWait()
            stop.store(true, ordering: .relaxed)
            contenderEnded.wait()
            return Array(UnsafeBufferPointer(start: slots, count: tasks.count))
        }
        #expect(values == Array(0..<2_000))
        let peak = peakThreads.load(ordering: .relaxed)
        #expect(peak <= ActiveProcessors.count, "\(peak) threads ran the batch's lanes at once")
    }
}

/// Where callback tasks leave their handlers, for a thread to call them later, without a lock
/// or an allocation on the tasks' side: each task owns a slot made beforehand, which no other
/// task touches. (A list that all the tasks push onto has one atomic that they share, and
/// ThreadSanitizer guards each atomic with a lock of its own, which its tasks then sleep on.)
private final class HandlerDrop: Sendable {
    private final class Slot: @unchecked Sendable {
        // Safe: the one task that owns the slot writes `handler` before it sets `isHanded`
        // (release); the deliverer reads it only after it sees `isHanded` set (acquire).
        var handler: (@Sendable (Int) -> Void)?
        let isHanded = Atomic(false)
    }

    private let slots: [Slot]

    init(count: Int) {
        slots = (0..<count).map { _ in Slot() }
        // ThreadSanitizer allocates an atomic's synchronization state, under a lock of its own,
        // at its first release: done here, so that a task's `hand` never sleeps on that lock.
        // A lane caught asleep there was rightly blocked in its task, and opened a lane.
        for slot in slots { slot.isHanded.store(false, ordering: .releasing) }
    }

    func hand(_ index: Int, _ handler: @escaping @Sendable (Int) -> Void) {
        slots[index].handler = handler
        slots[index].isHanded.store(true, ordering: .releasing)
    }

    /// A thread that, every `milliseconds`, calls each handler handed over since its last turn.
    func deliverEvery(milliseconds: UInt32) -> Deliverer {
        let deliverer = Deliverer()
        Thread.detachNewThread {
            var delivered = [Bool](repeating: false, count: self.slots.count)
            while !deliverer.isStopped {
                usleep(milliseconds * 1_000)
                for (index, slot) in self.slots.enumerated()
                where !delivered[index] && slot.isHanded.load(ordering: .acquiring) {
                    delivered[index] = true
                    let handler = slot.handler
                    slot.handler = nil
                    handler?(index)
                }
            }
        }
        return deliverer
    }

    final class Deliverer: Sendable {
        private let stopped = Atomic(false)
        var isStopped: Bool { stopped.load(ordering: .relaxed) }
        func stop() { stopped.store(true, ordering: .relaxed) }
    }
}
