import Testing

@testable import Taskig

@Suite struct CompletionStateMachineTests {
    @Test func workIsClaimedExactlyOnce() throws {
        var machine = CompletionStateMachine(work: {})
        #expect(!machine.hasStarted)
        #expect(machine.claimStart() != nil)
        #expect(machine.hasStarted)
        #expect(machine.claimStart() == nil)
    }

    @Test func completingBeforeStartDropsTheWork() throws {
        var machine = CompletionStateMachine(work: {})
        guard case .deliver(let callbacks) = machine.complete() else {
            Issue.record("first completion must deliver")
            return
        }
        #expect(callbacks.isEmpty)
        #expect(machine.claimStart() == nil)
        #expect(machine.isCompleted)
    }

    @Test func onlyTheFirstCompletionCounts() throws {
        var machine = CompletionStateMachine(work: {})
        _ = machine.claimStart()
        guard case .deliver = machine.complete() else {
            Issue.record("first completion must deliver")
            return
        }
        guard case .alreadyCompleted = machine.complete() else {
            Issue.record("second completion must be ignored")
            return
        }
    }

    @Test func callbacksAreDeliveredInRegistrationOrderThenImmediately() throws {
        var machine = CompletionStateMachine(work: {})
        var order: [Int] = []
        for i in 0..<3 {
            guard case .stored = machine.addCallback(CompletionCallback { _ in order.append(i) }) else {
                Issue.record("a pending run must store callbacks")
                return
            }
        }
        guard case .deliver(let callbacks) = machine.complete() else {
            Issue.record("completion must deliver")
            return
        }
        callbacks.forEach { $0.call(UnsafeRawPointer(bitPattern: 1)!) }
        #expect(order == [0, 1, 2])
        guard case .deliverNow = machine.addCallback(CompletionCallback { _ in }) else {
            Issue.record("a completed run must deliver at once")
            return
        }
    }
}
