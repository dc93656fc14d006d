/// The bookkeeping of running `count` tasks on a fixed set of lanes, each lane running one
/// task at a time. Pure logic, no locks.
///
/// Tasks are handed out in input order, in chunks: a lane takes a run of consecutive
/// tasks, so that thousands of short tasks do not fight over the lock for each one. A chunk
/// is never more than the lane asks for (lanes ask for more while their tasks are quick,
/// see ``BoundedConcurrentRun``), nor more than `maximumChunkSize`. Within that, it is half
/// of an even share of what is left among the lanes holding tasks, so chunks shrink as the
/// work runs out, but not below an eighth of what the lane asked for: a lane that asks for
/// many tasks has found them quick, and for quick tasks a slightly uneven finish costs less
/// than the many trips through the lock that chunks of one or two tasks would take. A lane reports what it settled when it takes its next chunk.
/// The run finishes when every task has settled, or earlier when a settled task asks for
/// it (a failure under fail-fast, a race that was won); from then on nothing is handed out.
@usableFromInline
struct BoundedRunStateMachine {
    @usableFromInline
    static let maximumChunkSize = 128

    /// A chunk is never smaller than what the lane asked for divided by this, while tasks
    /// are left.
    @usableFromInline
    static let smallestShareDivisor = 8

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
    /// Tasks lanes took and gave back unstarted, handed out again before any new ones.
    @usableFromInline
    var givenBack: [Range<Int>] = []

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
    /// - Parameters:
    ///   - limit: the most tasks the lane wants in its next chunk.
    ///   - givingBackTheRest: the lane gives back the tasks of its chunk it has not started,
    ///     for any lane to take (one whose tasks turned out to block, so that the others can
    ///     run them meanwhile).
    @inlinable
    mutating func settle(
        lane: Int,
        settled: Int,
        finishesRun: Bool = false,
        nextChunkUpTo limit: Int,
        givingBackTheRest: Bool = false
    ) -> NextAction {
        guard !isFinished else { return .stop }
        let unsettled = unsettledByLane[lane]
        precondition(settled <= unsettled.count, "a lane settled tasks it did not take")
        let rest = (unsettled.lowerBound + settled)..<unsettled.upperBound
        if givingBackTheRest && !finishesRun && !rest.isEmpty {
            givenBack.append(rest)
            unsettledByLane[lane] = rest.upperBound..<rest.upperBound
        } else {
            unsettledByLane[lane] = rest
        }
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

    /// Whether some task has not been handed to any lane yet, or was given back.
    @inlinable
    var hasUnclaimedTasks: Bool { nextIndex < count || !givenBack.isEmpty }

    /// Whether some lane holds tasks besides the one it is running: tasks it may give back
    /// for other lanes to run.
    @inlinable
    var lanesHoldTasksBeyondTheirCurrentOne: Bool { unsettledByLane.contains { $0.count > 1 } }

    /// The next chunk for a lane that holds no tasks: one that is starting, or one that
    /// settled all it held.
    ///
    /// - Parameter limit: the most tasks the lane wants, at least 1.
    @inlinable
    mutating func claim(lane: Int, upTo limit: Int) -> NextAction {
        precondition(unsettledByLane[lane].isEmpty, "BUG IN TASKIG: a lane claimed tasks while it held some")
        guard !isFinished, hasUnclaimedTasks else { return .stop }
        let chunk: Range<Int>
        if let returned = givenBack.popLast() {
            // Tasks given back were already too slow to run many in a row: one at a time.
            chunk = returned.lowerBound..<(returned.lowerBound + 1)
            if returned.count > 1 { givenBack.append((returned.lowerBound + 1)..<returned.upperBound) }
        } else {
            let remaining = count - nextIndex
            let share = remaining / ((lanesHoldingTasks + 1) * 2)
            let wanted = min(limit, Self.maximumChunkSize)
            let size = max(1, min(remaining, wanted, max(share, wanted / Self.smallestShareDivisor)))
            chunk = nextIndex..<(nextIndex + size)
            nextIndex += size
        }
        unsettledByLane[lane] = chunk
        lanesHoldingTasks += 1
        return .run(chunk)
    }
}
