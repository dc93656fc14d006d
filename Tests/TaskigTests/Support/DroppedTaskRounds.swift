import Taskig

/// Rounds of four trivial tasks that capture one object: each round waits for them with
/// `wait` (given the round's number, returning the tasks' values in input order), then drops
/// them. Returns in how many rounds the values were wrong, and in how many the object was
/// still alive right after the drop: something of Taskig's still held the tasks.
func roundsOfDroppedTasks(
    _ rounds: Int, wait: (_ round: Int, _ tasks: [ThrowableTask<Int>]) throws -> [Int]
) rethrows -> (stillHeld: Int, wrong: Int) {
    final class Captured: Sendable {}
    var stillHeld = 0
    var wrong = 0
    for round in 0..<rounds {
        var object: Captured? = Captured()
        weak let captured = object
        var tasks = (0..<4).map { i in ThrowableTask { [object] in withExtendedLifetime(object) { i } } }
        object = nil
        if try wait(round, tasks) != [0, 1, 2, 3] { wrong += 1 }
        tasks = []
        if captured != nil { stillHeld += 1 }
    }
    return (stillHeld, wrong)
}
