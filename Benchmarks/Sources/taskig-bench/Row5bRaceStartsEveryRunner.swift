import BenchWorkloads
import Dispatch
import Foundation
import Taskig

// Row 5b: `awaitFirst` whose 1 ms winner comes last, behind 2, 4 and 49 tasks that block for
// 30 ms. A race means something only when all its runners run at once: the winner must start
// with the others, not once lanes beside the sleepers open. Each round is timed from a plain
// thread, next to a task group racing `Task.sleep`s of the same lengths, and waits for the
// losers to end before the next round. The first race of a fresh process, whose threads are
// all still to start, is timed in child processes.

/// The first race of this process, then the first task group race, each from a plain thread.
func childFirstRace(sleepers: Int) {
    let (winner, taskig) = onFreshThread { () -> (Int, Double) in
        let start = nanoseconds()
        let winner = try! sleepersThenWinner(sleepers).awaitFirst()
        return (winner, Double(nanoseconds() - start) / 1e9)
    }
    var groupWinner = -1
    let group = seconds { groupWinner = blockingOnSwiftConcurrency { await taskGroupSleepersThenWinner(sleepers) } }
    Child.report([
        "taskig": taskig, "group": group, "taskig-lost": winner == 0 ? 0 : 1, "group-lost": groupWinner == 0 ? 0 : 1,
    ])
    exit(0)
}

func runRaceStartsEveryRunnerRow(into table: Table, repetitions: Int) {
    progress("Row 5b: awaitFirst with the winner behind 2, 4 and 49 sleepers")
    let rounds = 4 * repetitions
    for sleepers in [2, 4, 49] {
        var taskigTimes: [Double] = []
        var groupTimes: [Double] = []
        // Races a sleeper won: the winner started 29 ms late, which a machine loaded far past its
        // cores can make of either side.
        var taskigLost = 0
        var groupLost = 0
        for _ in 0..<rounds {
            let (winner, taskig) = onFreshThread { () -> (Int, Double) in
                let start = nanoseconds()
                let winner = try! sleepersThenWinner(sleepers).awaitFirst()
                return (winner, Double(nanoseconds() - start) / 1e9)
            }
            if winner != 0 { taskigLost += 1 }
            taskigTimes.append(taskig)
            usleep(40_000)
            var groupWinner = -1
            groupTimes.append(
                seconds { groupWinner = blockingOnSwiftConcurrency { await taskGroupSleepersThenWinner(sleepers) } })
            if groupWinner != 0 { groupLost += 1 }
            usleep(40_000)
        }
        let firstRaces = (0..<repetitions).map { _ in Child.run(["first-race", "\(sleepers)"]) }
        let firstTaskig = median(firstRaces.map { $0["taskig"]! })
        let firstGroup = median(firstRaces.map { $0["group"]! })
        let taskig = median(taskigTimes)
        let group = median(groupTimes)
        let ratio = max(taskig / group, firstTaskig / firstGroup)
        table.add(
            TableRow(
                row: "5b. `awaitFirst` of \(sleepers) × 30 ms sleepers, then a 1 ms winner (median of \(rounds) rounds, \(repetitions) fresh processes)",
                taskig:
                    "\(formatDuration(taskig)) (\(formatDuration(taskigTimes.min()!))–\(formatDuration(taskigTimes.max()!))); first race of a process: \(formatDuration(firstTaskig))",
                baseline:
                    "TaskGroup race of `Task.sleep`s: \(formatDuration(group)); first of a process: \(formatDuration(firstGroup))",
                ratio: String(format: "%.2f× (first race %.2f×)", taskig / group, firstTaskig / firstGroup)
                    + "; races a sleeper won: \(taskigLost + firstRaces.reduce(0) { $0 + Int($1["taskig-lost"]!) }) "
                    + "(TaskGroup: \(groupLost + firstRaces.reduce(0) { $0 + Int($1["group-lost"]!) }))",
                goal: sleepers <= 4 ? "≤ 1.3×" : "—", met: sleepers <= 4 ? ratio <= 1.3 : nil))
    }
}
