import Foundation
import Testing

@testable import Taskig

@Suite struct AwaitReduceTests {
    @Test func foldsInOrderEachStepSeeingThePreviousState() throws {
        let result = try ["a", "b", "c"].awaitReduce("") { state, element in
            ThrowableTask { state + element }
        }
        #expect(result == "abc")
    }

    @Test func foldsAnArrayOfTasks() throws {
        let tasks = (1...4).map { i in ThrowableTask { i } }
        let sum = try tasks.awaitReduce(0) { total, task in
            ThrowableTask { total + (try task.await()) }
        }
        #expect(sum == 10)
    }

    @Test func stopsAtTheFirstErrorAndRunsNothingAfterIt() throws {
        let ran = LockedValue<[Int]>([])
        #expect(throws: TestError(2)) {
            try [1, 2, 3, 4].awaitReduce(0) { total, n in
                ThrowableTask {
                    ran.update { $0.append(n) }
                    if n == 2 { throw TestError(2) }
                    return total + n
                }
            }
        }
        #expect(ran.value == [1, 2])
    }

    @Test func noElementsGiveTheInitialState() throws {
        #expect(try [Int]().awaitReduce(7) { state, _ in ThrowableTask { state } } == 7)
    }
}
