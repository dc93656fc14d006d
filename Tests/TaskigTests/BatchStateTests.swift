import Testing

@testable import Taskig

/// The collection engine's state machine on its own: which lanes it admits, when a lane's end
/// starts another or releases the caller, and what ending early does. No thread runs here.
@Suite struct BatchStateTests {
    /// Admits each of `lanes` while tasks are left to start; whether each was admitted.
    private func admit(_ lanes: [BatchLane], to state: inout BatchState) -> [Bool] {
        lanes.map { state.admit($0, hasTasksToStart: true) }
    }

    /// Admits `lanes` and has a thread take each up; whether every step succeeded.
    private func run(_ lanes: [BatchLane], in state: inout BatchState) -> Bool {
        lanes.allSatisfy { state.admit($0, hasTasksToStart: true) && state.threadTakesUp($0) }
    }

    @Test func admitsLanesUpToConcurrencyWhileTasksAreLeftToStart() {
        var state = BatchState(taskCount: 10, concurrency: 3)
        let candidates = (0..<4).map { _ in BatchLane(hasStarted: false) }
        #expect(state.admitsALane(hasTasksToStart: true))
        #expect(admit(candidates, to: &state) == [true, true, true, false])
        #expect(!state.admitsALane(hasTasksToStart: true), "the roster is full")
        state.withdraw(candidates[2])
        #expect(!state.isOnRoster(candidates[2]))
        let admittedWithNoTaskLeft = state.admit(candidates[3], hasTasksToStart: false)
        #expect(!admittedWithNoTaskLeft)
        #expect(admit([candidates[3]], to: &state) == [true])
    }

    @Test func aThreadTakesUpOnlyLanesStillOnTheRoster() {
        var state = BatchState(taskCount: 2, concurrency: 2)
        let (kept, letGo) = (BatchLane(hasStarted: false), BatchLane(hasStarted: false))
        #expect(admit([letGo], to: &state) == [true])
        #expect(run([kept], in: &state))
        #expect(state.threads == 1)
        // Every task settles on `kept` before a thread comes for `letGo`: it is let go.
        _ = state.threadLeaves()
        let action = state.end(kept, settled: 2)
        #expect(action == .releaseCaller)
        let tookUp = state.threadTakesUp(letGo)
        #expect(!tookUp)
        #expect(letGo.hasStarted, "its thread marks it, so that nobody waits for it")
        #expect(state.threads == 0)
    }

    @Test func theLastThreadToLeaveStartsALaneForAFreeSlot() {
        var state = BatchState(taskCount: 10, concurrency: 3)
        #expect(run([BatchLane(hasStarted: false), BatchLane(hasStarted: false)], in: &state))
        let whileAnotherRuns = state.threadLeaves()
        #expect(!whileAnotherRuns)
        let asTheLast = state.threadLeaves()
        #expect(asTheLast)
    }

    @Test func theLastThreadToLeaveAFullRosterStartsNoLane() {
        var state = BatchState(taskCount: 10, concurrency: 1)
        #expect(run([BatchLane(hasStarted: false)], in: &state))
        // It left its task pending: the lane keeps its slot.
        let startsLane = state.threadLeaves()
        #expect(!startsLane)
    }

    @Test func aLaneThatEndsWithNoThreadRunningStartsAnother() {
        var state = BatchState(taskCount: 5, concurrency: 2)
        let (pending, running) = (BatchLane(hasStarted: false), BatchLane(hasStarted: false))
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

    @Test func theLastLaneToEndOnceEveryTaskSettledReleasesTheCallerOnce() {
        var state = BatchState(taskCount: 4, concurrency: 3)
        let (first, second) = (BatchLane(hasStarted: true), BatchLane(hasStarted: true))
        let waitingForAThread = BatchLane(hasStarted: false)
        #expect(admit([first, second, waitingForAThread], to: &state) == [true, true, true])
        let beforeTheLast = state.end(first, settled: 3)
        #expect(beforeTheLast == .startLane)
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
        let (first, second) = (BatchLane(hasStarted: true), BatchLane(hasStarted: true))
        #expect(admit([first, second], to: &state) == [true, true])
        // `second` has settled nothing but is still leaving its loop: the caller waits for it.
        let firstEnd = state.end(first, settled: 2)
        #expect(firstEnd == .none)
        #expect(!state.mayLetGoOfTasks)
        let secondEnd = state.end(second, settled: 0)
        #expect(secondEnd == .releaseCaller)
    }

    @Test func endingEarlyReleasesTheCallerOnceAndAdmitsNoMoreLanes() {
        var state = BatchState(taskCount: 5, concurrency: 3)
        let running = BatchLane(hasStarted: false)
        #expect(run([running], in: &state))
        let (firstEnd, secondEnd) = (state.endEarly(), state.endEarly())
        #expect(firstEnd && !secondEnd)
        #expect(state.isOver && state.hasReleasedCaller)
        #expect(admit([BatchLane(hasStarted: false)], to: &state) == [false])
        let startsLane = state.threadLeaves()
        #expect(!startsLane, "an ended batch starts no lane")
        let laneEnd = state.end(running, settled: 1)
        #expect(laneEnd == .none)
        #expect(!state.mayLetGoOfTasks, "tasks that never settled may still run: the batch keeps them")
    }

    @Test func anEmptyBatchHasNothingToStart() {
        var state = BatchState(taskCount: 0, concurrency: 1)
        #expect(state.mayLetGoOfTasks)
        let admitted = state.admit(BatchLane(hasStarted: true), hasTasksToStart: false)
        #expect(!admitted)
    }

    @Test func endingALaneTwiceIsABug() async {
        await #expect(processExitsWith: .failure) {
            var state = BatchState(taskCount: 2, concurrency: 2)
            let lane = BatchLane(hasStarted: true)
            _ = state.admit(lane, hasTasksToStart: true)
            _ = state.end(lane, settled: 1)
            _ = state.end(lane, settled: 1)
        }
    }

    @Test func settlingMoreTasksThanTheBatchHasIsABug() async {
        await #expect(processExitsWith: .failure) {
            var state = BatchState(taskCount: 2, concurrency: 2)
            let lane = BatchLane(hasStarted: true)
            _ = state.admit(lane, hasTasksToStart: true)
            _ = state.end(lane, settled: 3)
        }
    }
}
