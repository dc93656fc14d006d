/// The bookkeeping of running `count` tasks on a fixed set of lanes, each lane running one
/// task at a time. Pure logic, no locks.
///
/// Tasks are handed out in input order, in chunks: a lane takes a run of consecutive
/// tasks, so that thousands of short tasks do not fight over the lock for each one. A chunk
/// is never more than the lane asks for (lanes ask for more while their tasks are quick,
/// see ``BoundedConcurrentRun``), nor more than `maximumChunkSize`, nor more than half of
/// an even share of what is left among the lanes holding tasks, so chunks shrink as the
/// work runs out. A lane reports what it settled when it takes its next chunk.
/// The run finishes when every task has settled, or earlier when a settled task asks for
/// it (a failure under fail-fast, a race that was won); from then on nothing is handed out.
@usableFromInline
struct BoundedRunStateMachine {
    @usableFromInline
    static let maximumChunkSize = 128

    @usableFromInline
    let count: Int
    @usableFromInline
    var nextIndex = 0
    @usableFromInline
    var settledCount = 0
    @usableFromInline
    var isFinished: Bool
    /// The tasks each lane has taken and not yet settled.
    @usableFromInline
    var unsettledByLane: [Range<Int>]
    /// How many lanes hold tasks they have not settled.
    @usableFromInline
    var lanesHoldingTasks = 0

    @usableFromInline
    enum NextAction: Equatable {
        /// Run the tasks in this range, in order.
        case run(Range<Int>)
        /// Nothing left for this lane: stop it.
        case stop
        /// This call finished the run. Cancel the tasks at these indices, which other lanes
        /// are running or about to start, then release the waiter.
        case finish(cancelling: [Int])
    }

    @inlinable
    init(count: Int, lanes: Int) {
        self.count = count
        self.isFinished = count == 0
        self.unsettledByLane = Array(repeating: 0..<0, count: lanes)
    }

    /// Records that the lane settled `settled` more tasks, the first of its unsettled ones,
    /// and hands it its next chunk.
    ///
    /// - Parameter finishesRun: the last of those tasks asks to end the whole run now.
    /// - Parameter limit: the most tasks the lane wants in its next chunk.
    @inlinable
    mutating func settle(lane: Int, settled: Int, finishesRun: Bool = false, nextChunkUpTo limit: Int) -> NextAction {
        guard !isFinished else { return .stop }
        let unsettled = unsettledByLane[lane]
        precondition(settled <= unsettled.count, "a lane settled tasks it did not take")
        unsettledByLane[lane] = (unsettled.lowerBound + settled)..<unsettled.upperBound
        if !unsettled.isEmpty && unsettledByLane[lane].isEmpty { lanesHoldingTasks -= 1 }
        settledCount += settled
        if finishesRun || settledCount == count {
            isFinished = true
            var cancelling: [Int] = []
            for other in unsettledByLane.indices where other != lane {
                cancelling.append(contentsOf: unsettledByLane[other])
            }
            return .finish(cancelling: cancelling)
        }
        guard unsettledByLane[lane].isEmpty else { return .run(unsettledByLane[lane]) }
        return claim(lane: lane, upTo: limit)
    }

    /// Whether some task has not been handed to any lane yet.
    @inlinable
    var hasUnclaimedTasks: Bool { nextIndex < count }

    /// The next chunk for a lane that holds no tasks: one that is starting, or one that
    /// settled all it held.
    ///
    /// - Parameter limit: the most tasks the lane wants, at least 1.
    @inlinable
    mutating func claim(lane: Int, upTo limit: Int) -> NextAction {
        precondition(unsettledByLane[lane].isEmpty, "a lane claimed tasks while it held some")
        guard !isFinished, nextIndex < count else { return .stop }
        let remaining = count - nextIndex
        let share = remaining / ((lanesHoldingTasks + 1) * 2)
        let size = max(1, min(share, limit, Self.maximumChunkSize))
        let chunk = nextIndex..<(nextIndex + size)
        nextIndex += size
        unsettledByLane[lane] = chunk
        lanesHoldingTasks += 1
        return .run(chunk)
    }
}
