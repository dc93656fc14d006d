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
        #expect(machine.claim(lane: 0, upTo: .max) == .run(0..<50))
        #expect(machine.claim(lane: 1, upTo: .max) == .run(50..<62))
        // Lane 0 settles its chunk, so it no longer counts among the lanes holding tasks.
        #expect(machine.settle(lane: 0, settled: 50, nextChunkUpTo: .max) == .run(62..<71))
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
