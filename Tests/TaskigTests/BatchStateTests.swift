import Testing

@testable import Taskig

/// The collection engine's state machine on its own: which lanes it admits, when a lane's end
/// starts another or releases the caller, and what ending early does. No thread runs here.
@Suite struct BatchStateTests {
    /// Admits each of `lanes`, as lanes the caller runs itself when `started`, while tasks are
    /// left to start; whether each was admitted.
    private func admit(_ lanes: [BatchLane], started: Bool = false, to state: inout BatchState) -> [Bool] {
        lanes.map { state.admit($0, hasStarted: started, hasTasksToStart: true) }
    }

    /// Admits `lanes` and has a thread take each up; whether every step succeeded.
    private func run(_ lanes: [BatchLane], in state: inout BatchState) -> Bool {
        lanes.allSatisfy { state.admit($0, hasStarted: false, hasTasksToStart: true) && state.threadTakesUp($0) }
    }

    @Test func admitsLanesUpToConcurrencyWhileTasksAreLeftToStart() {
        var state = BatchState(taskCount: 10, concurrency: 3)
        let candidates = (0..<4).map { _ in BatchLane() }
        #expect(state.admitsALane(hasTasksToStart: true))
        #expect(admit(candidates, to: &state) == [true, true, true, false])
        #expect(!state.admitsALane(hasTasksToStart: true), "the roster is full")
        state.withdraw(candidates[2])
        #expect(!state.isOnRoster(candidates[2]))
        let admittedWithNoTaskLeft = state.admit(candidates[3], hasStarted: false, hasTasksToStart: false)
        #expect(!admittedWithNoTaskLeft)
        #expect(admit([candidates[3]], to: &state) == [true])
    }

    @Test func aThreadTakesUpOnlyLanesStillOnTheRoster() {
        var state = BatchState(taskCount: 2, concurrency: 2)
        let (kept, letGo) = (BatchLane(), BatchLane())
        #expect(admit([letGo], to: &state) == [true])
        #expect(run([kept], in: &state))
        #expect(state.threads == 1)
        // Every task settles on `kept` before a thread comes for `letGo`: it is let go.
        _ = state.threadLeaves()
        let action = state.end(kept, settled: 2)
        #expect(action == .releaseCaller)
        let tookUp = state.threadTakesUp(letGo)
        #expect(!tookUp)
        #expect(state.threads == 0)
    }

    @Test func theLastThreadToLeaveStartsALaneForAFreeSlot() {
        var state = BatchState(taskCount: 10, concurrency: 3)
        #expect(run([BatchLane(), BatchLane()], in: &state))
        let whileAnotherRuns = state.threadLeaves()
        #expect(!whileAnotherRuns)
        let asTheLast = state.threadLeaves()
        #expect(asTheLast)
    }

    @Test func theLastThreadToLeaveAFullRosterStartsNoLane() {
        var state = BatchState(taskCount: 10, concurrency: 1)
        #expect(run([BatchLane()], in: &state))
        // It left its task pending: the lane keeps its slot.
        let startsLane = state.threadLeaves()
        #expect(!startsLane)
    }

    @Test func aLaneThatEndsWithNoThreadRunningStartsAnother() {
        var state = BatchState(taskCount: 5, concurrency: 2)
        let (pending, running) = (BatchLane(), BatchLane())
        #expect(run([pending, running], in: &state))
        _ = state.threadLeaves()
        // A running thread takes the freed slot itself.
        let whileAThreadRuns = state.end(pending, settled: 1)
        #expect(whileAThreadRuns == .none)
        _ = state.threadLeaves()
        let withNoThread = state.end(running, settled: 2)
        #expect(withNoThread == .startLane)
        #expect(state.settledByEndedLanes == 3)
        #expect(!state.mayLetGoOfTasks)
    }

    /// A burst of pending tasks that settle at once, each on a thread of its own, each finding
    /// no thread running a lane: only the first starts one.
    @Test func slotsFreedWhileALaneAwaitsItsThreadStartNoOtherLane() {
        var state = BatchState(taskCount: 10, concurrency: 3)
        let (first, second) = (BatchLane(), BatchLane())
        #expect(run([first, second], in: &state))
        _ = state.threadLeaves()
        _ = state.threadLeaves()
        // Both left their tasks pending: no thread runs a lane.
        let firstSettles = state.end(first, settled: 1)
        #expect(firstSettles == .startLane)
        let started = BatchLane()
        #expect(admit([started], to: &state) == [true])
        #expect(state.lanesAwaitingThreads == 1)
        let secondSettles = state.end(second, settled: 1)
        #expect(secondSettles == .none, "the lane on its way to a thread takes the slot")
        let tookUp = state.threadTakesUp(started)
        #expect(tookUp && state.lanesAwaitingThreads == 0 && state.threads == 1)
        let startsLane = state.threadLeaves()
        #expect(startsLane, "the last thread to leave starts a lane for the free slots")
    }

    @Test func aLaneWithdrawnOrLetGoNoLongerAwaitsAThread() {
        var state = BatchState(taskCount: 2, concurrency: 3)
        let (running, withdrawn, letGo) = (BatchLane(), BatchLane(), BatchLane())
        #expect(admit([running], started: true, to: &state) == [true])
        #expect(admit([withdrawn, letGo], to: &state) == [true, true])
        #expect(state.lanesAwaitingThreads == 2)
        state.withdraw(withdrawn)
        #expect(state.lanesAwaitingThreads == 1)
        let end = state.end(running, settled: 2)
        #expect(end == .releaseCaller && state.lanesAwaitingThreads == 0)
        let tookUp = state.threadTakesUp(letGo)
        #expect(!tookUp && state.lanesAwaitingThreads == 0)
    }

    @Test func theLastLaneToEndOnceEveryTaskSettledReleasesTheCallerOnce() {
        var state = BatchState(taskCount: 4, concurrency: 3)
        let (first, second, waitingForAThread) = (BatchLane(), BatchLane(), BatchLane())
        #expect(admit([first, second], started: true, to: &state) == [true, true])
        #expect(admit([waitingForAThread], to: &state) == [true])
        let beforeTheLast = state.end(first, settled: 3)
        #expect(beforeTheLast == .none, "the lane on its way to a thread takes the slot")
        let last = state.end(second, settled: 1)
        #expect(last == .releaseCaller, "a lane no thread took up is let go")
        #expect(state.lanes.isEmpty)
        #expect(state.mayLetGoOfTasks)
        #expect(state.hasReleasedCaller)
        let endedEarly = state.endEarly()
        #expect(!endedEarly, "a batch whose tasks all settled cannot end early")
    }

    @Test func aLaneThatStillRunsKeepsTheCallerWaiting() {
        var state = BatchState(taskCount: 2, concurrency: 2)
        let (first, second) = (BatchLane(), BatchLane())
        #expect(admit([first, second], started: true, to: &state) == [true, true])
        // `second` has settled nothing but is still leaving its loop: the caller waits for it.
        let firstEnd = state.end(first, settled: 2)
        #expect(firstEnd == .none)
        #expect(!state.mayLetGoOfTasks)
        let secondEnd = state.end(second, settled: 0)
        #expect(secondEnd == .releaseCaller)
    }

    @Test func endingEarlyReleasesTheCallerOnceAndAdmitsNoMoreLanes() {
        var state = BatchState(taskCount: 5, concurrency: 3)
        let running = BatchLane()
        #expect(run([running], in: &state))
        let (firstEnd, secondEnd) = (state.endEarly(), state.endEarly())
        #expect(firstEnd && !secondEnd)
        #expect(state.isOver && state.hasReleasedCaller)
        #expect(admit([BatchLane()], to: &state) == [false])
        let startsLane = state.threadLeaves()
        #expect(!startsLane, "an ended batch starts no lane")
        let laneEnd = state.end(running, settled: 1)
        #expect(laneEnd == .none)
        #expect(!state.mayLetGoOfTasks, "tasks that never settled may still run: the batch keeps them")
    }

    @Test func anEmptyBatchHasNothingToStart() {
        var state = BatchState(taskCount: 0, concurrency: 1)
        #expect(state.mayLetGoOfTasks)
        let admitted = state.admit(BatchLane(), hasStarted: true, hasTasksToStart: false)
        #expect(!admitted)
    }

    /// A task cancelled for good while a worker's lane runs it settles without that lane: once
    /// its cancellation is recorded, the caller goes, and the lane counts the task itself when
    /// it leaves it.
    @Test func aDroppedTaskLetsTheCallerGoWhileItsLaneStillRunsIt() {
        var state = BatchState(taskCount: 3, concurrency: 2)
        let (callers, workers) = (BatchLane(), BatchLane())
        #expect(admit([callers, workers], started: true, to: &state) == [true, true])
        state.drop(taskOf: workers, settledBefore: 1)
        let callersEnd = state.end(callers, settled: 1)
        #expect(callersEnd != .releaseCaller, "the dropped task's cancellation is not recorded yet")
        let recorded = state.recordedDroppedTask(of: workers)
        #expect(recorded && state.hasReleasedCaller)
        #expect(!state.mayLetGoOfTasks, "the lane still runs a task: the batch keeps them")
        state.laneLeftDroppedTask(workers)
        #expect(state.droppedTasks.isEmpty)
        let workersEnd = state.end(workers, settled: 2)
        #expect(workersEnd == .none)
        #expect(state.settledByEndedLanes == 3 && state.mayLetGoOfTasks)
    }

    @Test func aDroppedTaskWhoseLaneLeftFirstStillWaitsForItsRecord() {
        var state = BatchState(taskCount: 1, concurrency: 1)
        let lane = BatchLane()
        #expect(admit([lane], started: true, to: &state) == [true])
        state.drop(taskOf: lane, settledBefore: 0)
        #expect(state.settledWithoutTheirLanes == 0)
        state.laneLeftDroppedTask(lane)
        let end = state.end(lane, settled: 1)
        #expect(end != .releaseCaller, "the caller must not read an outcome that is not in the sink yet")
        let recorded = state.recordedDroppedTask(of: lane)
        #expect(recorded && state.droppedTasks.isEmpty)
    }

    @Test func aLaneRunningATaskThatHasNotSettledKeepsTheCallerWaiting() {
        var state = BatchState(taskCount: 3, concurrency: 2)
        let (dropped, running) = (BatchLane(), BatchLane())
        #expect(admit([dropped, running], started: true, to: &state) == [true, true])
        state.drop(taskOf: dropped, settledBefore: 1)
        let recorded = state.recordedDroppedTask(of: dropped)
        #expect(!recorded)
        #expect(state.settledWithoutTheirLanes == 1)
        let runningEnd = state.end(running, settled: 1)
        #expect(runningEnd == .releaseCaller)
    }

    @Test func droppingALanesTaskTwiceIsABug() async {
        await #expect(processExitsWith: .failure) {
            var state = BatchState(taskCount: 2, concurrency: 2)
            let lane = BatchLane()
            _ = state.admit(lane, hasStarted: true, hasTasksToStart: true)
            state.drop(taskOf: lane, settledBefore: 0)
            state.drop(taskOf: lane, settledBefore: 0)
        }
    }

    @Test func endingALaneTwiceIsABug() async {
        await #expect(processExitsWith: .failure) {
            var state = BatchState(taskCount: 2, concurrency: 2)
            let lane = BatchLane()
            _ = state.admit(lane, hasStarted: true, hasTasksToStart: true)
            _ = state.end(lane, settled: 1)
            _ = state.end(lane, settled: 1)
        }
    }

    @Test func settlingMoreTasksThanTheBatchHasIsABug() async {
        await #expect(processExitsWith: .failure) {
            var state = BatchState(taskCount: 2, concurrency: 2)
            let lane = BatchLane()
            _ = state.admit(lane, hasStarted: true, hasTasksToStart: true)
            _ = state.end(lane, settled: 3)
        }
    }
}
