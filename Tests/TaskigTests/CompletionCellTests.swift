import Dispatch
import Testing

@testable import Taskig

@Suite struct CompletionCellTests {
    @Test func concurrentStartsRunTheWorkOnce() throws {
        let runs = LockedValue(0)
        let cell = CompletionCell<Int> { complete in
            runs.update { $0 += 1 }
            complete(7)
        }
        DispatchQueue.concurrentPerform(iterations: 64) { _ in cell.startIfNeeded() }
        #expect(runs.value == 1)
        #expect(cell.completedValue == 7)
    }

    @Test func manyCompletingThreadsLeaveExactlyOneValue() throws {
        for _ in 0..<50 {
            let cell = CompletionCell<Int> { _ in }
            let winners = LockedValue<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 16) { i in
                if cell.complete(with: i) { winners.update { $0.append(i) } }
            }
            #expect(winners.value.count == 1)
            #expect(cell.completedValue == winners.value.first)
        }
    }

    @Test func callbacksSeeTheValueBeforeAndAfterCompletion() throws {
        let cell = CompletionCell<String> { complete in complete("done") }
        let seen = LockedValue<[String]>([])
        cell.whenComplete { value in seen.update { $0.append("early \(value)") } }
        cell.startIfNeeded()
        cell.whenComplete { value in seen.update { $0.append("late \(value)") } }
        #expect(seen.value == ["early done", "late done"])
    }

    @Test func completingFirstMeansTheWorkNeverStarts() throws {
        let started = LockedValue(false)
        let cell = CompletionCell<Int> { complete in
            started.set(true)
            complete(1)
        }
        cell.complete(with: 2)
        #expect(!cell.startIfNeeded())
        #expect(!started.value)
        #expect(cell.completedValue == 2)
    }
}
