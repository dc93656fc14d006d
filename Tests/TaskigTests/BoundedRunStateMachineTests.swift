import Testing

@testable import Taskig

@Suite struct BoundedRunStateMachineTests {
    /// Drives the machine with lanes taking turns, settling whole chunks.
    private func handedOutIndices(count: Int, lanes: Int) -> [Int] {
        var machine = BoundedRunStateMachine(count: count, lanes: lanes)
        var handedOut: [Int] = []
        var chunks: [Range<Int>?] = (0..<lanes).map { lane in
            if case .run(let chunk) = machine.claim(lane: lane, upTo: .max) { return chunk }
            return nil
        }
        while chunks.contains(where: { $0 != nil }) {
            for lane in 0..<lanes {
                guard let chunk = chunks[lane] else { continue }
                handedOut.append(contentsOf: chunk)
                switch machine.settle(lane: lane, settled: chunk.count, nextChunkUpTo: .max) {
                case .run(let next): chunks[lane] = next
                case .stop, .finish: chunks[lane] = nil
                }
            }
        }
        #expect(machine.isFinished)
        return handedOut
    }

    @Test(arguments: [(1, 1), (10, 3), (1000, 50), (100_000, 50), (7, 50)])
    func everyTaskIsHandedOutOnce(count: Int, lanes: Int) {
        let indices = handedOutIndices(count: count, lanes: lanes)
        #expect(indices.sorted() == Array(0..<count))
    }

    @Test func oneLaneRunsEverythingInOrder() throws {
        #expect(handedOutIndices(count: 500, lanes: 1) == Array(0..<500))
    }

    @Test func chunksStayBounded() throws {
        var machine = BoundedRunStateMachine(count: 1_000_000, lanes: 1)
        #expect(machine.claim(lane: 0, upTo: .max) == .run(0..<BoundedRunStateMachine.maximumChunkSize))
    }

    @Test func aLaneGetsNoMoreThanItAsksFor() throws {
        var machine = BoundedRunStateMachine(count: 8, lanes: 4)
        for lane in 0..<4 {
            #expect(machine.claim(lane: lane, upTo: 1) == .run(lane..<(lane + 1)))
        }
        #expect(machine.settle(lane: 0, settled: 1, nextChunkUpTo: 3) == .run(4..<5))
    }

    @Test func chunksAreAShareOfWhatIsLeftAmongTheLanesHoldingTasks() throws {
        var machine = BoundedRunStateMachine(count: 100, lanes: 50)
        // Alone, a lane may take half of what is left; with one other lane holding tasks, a quarter.
        #expect(machine.claim(lane: 0, upTo: 64) == .run(0..<50))
        #expect(machine.claim(lane: 1, upTo: 64) == .run(50..<62))
        // Lane 0 settles its chunk, so it no longer counts among the lanes holding tasks.
        #expect(machine.settle(lane: 0, settled: 50, nextChunkUpTo: 64) == .run(62..<71))
    }

    @Test func tasksHeldBeyondTheRunningOnesCanStillUseMoreLanes() throws {
        var machine = BoundedRunStateMachine(count: 10, lanes: 3)
        #expect(machine.claim(lane: 0, upTo: 8) == .run(0..<5))
        #expect(machine.claim(lane: 1, upTo: 24) == .run(5..<8))
        #expect(machine.claim(lane: 2, upTo: 16) == .run(8..<10))
        #expect(machine.hasUnclaimedTasks == false)
        #expect(machine.lanesHoldTasksBeyondTheirCurrentOne, "lane 0 could give back four of its tasks")
        #expect(machine.settle(lane: 0, settled: 4, nextChunkUpTo: 8) == .run(4..<5))
        #expect(machine.settle(lane: 1, settled: 2, nextChunkUpTo: 8) == .run(7..<8))
        #expect(machine.settle(lane: 2, settled: 1, nextChunkUpTo: 8) == .run(9..<10))
        #expect(machine.lanesHoldTasksBeyondTheirCurrentOne == false, "each lane holds only the task it runs")
    }

    @Test func lanesAskForMoreTasksTheQuickerTheirLastChunkWas() throws {
        typealias Run = BoundedConcurrentRun<PlainLaneWork<Task<Int>>>
        #expect(Run.nextChunkLimit(after: 1, took: 500) == 8)
        #expect(Run.nextChunkLimit(after: 8, took: 10_000) == 16)
        #expect(Run.nextChunkLimit(after: 64, took: 1_000) == BoundedRunStateMachine.maximumChunkSize)
        #expect(Run.nextChunkLimit(after: 128, took: 19_000) == BoundedRunStateMachine.maximumChunkSize)
        #expect(Run.nextChunkLimit(after: 128, took: 20_000) == 1, "a slow chunk sends the lane back to one task")
    }

    @Test func chunksShrinkNoFurtherThanAnEighthOfWhatTheLaneAsksFor() throws {
        var machine = BoundedRunStateMachine(count: 1000, lanes: 2)
        var sizes: [Int] = []
        var next = machine.claim(lane: 0, upTo: 128)
        while case .run(let chunk) = next {
            sizes.append(chunk.count)
            next = machine.settle(lane: 0, settled: chunk.count, nextChunkUpTo: 128)
        }
        #expect(sizes.reduce(0, +) == 1000)
        #expect(sizes.dropLast().allSatisfy { $0 >= 16 }, "\(sizes)")
        #expect(sizes.last == 1000 - sizes.dropLast().reduce(0, +))
        // A lane that asks for one task at a time still gets one, down to the last.
        var slow = BoundedRunStateMachine(count: 3, lanes: 1)
        #expect(slow.claim(lane: 0, upTo: 1) == .run(0..<1))
        #expect(slow.settle(lane: 0, settled: 1, nextChunkUpTo: 1) == .run(1..<2))
    }

    @Test func tasksGivenBackAreHandedOutAgainOneAtATimeBeforeNewOnes() throws {
        var machine = BoundedRunStateMachine(count: 100, lanes: 2)
        #expect(machine.claim(lane: 0, upTo: 10) == .run(0..<10))
        #expect(machine.settle(lane: 0, settled: 3, nextChunkUpTo: 10, givingBackTheRest: true) == .run(3..<4))
        #expect(machine.claim(lane: 1, upTo: 10) == .run(4..<5))
        #expect(machine.settle(lane: 1, settled: 1, nextChunkUpTo: 10) == .run(5..<6))
        // Once the given-back tasks are gone, chunks come from the untouched tasks again.
        for index in 6..<10 {
            #expect(machine.settle(lane: 1, settled: 1, nextChunkUpTo: 10) == .run(index..<(index + 1)))
        }
        guard case .run(let next) = machine.settle(lane: 1, settled: 1, nextChunkUpTo: 10) else {
            Issue.record("expected a chunk")
            return
        }
        #expect(next.lowerBound == 10 && next.count == 10)
    }

    @Test func finishingEarlyNamesTheOtherLanesTasks() throws {
        var machine = BoundedRunStateMachine(count: 8, lanes: 3)
        _ = machine.claim(lane: 0, upTo: 1)
        _ = machine.claim(lane: 1, upTo: 1)
        _ = machine.claim(lane: 2, upTo: 1)
        #expect(
            machine.settle(lane: 1, settled: 1, finishesRun: true, nextChunkUpTo: 1) == .finish(cancelling: [0, 2]))
        #expect(machine.settle(lane: 0, settled: 1, nextChunkUpTo: 1) == .stop)
    }

    @Test func noTasksIsFinishedFromTheStart() throws {
        let machine = BoundedRunStateMachine(count: 0, lanes: 0)
        #expect(machine.isFinished)
    }
}
