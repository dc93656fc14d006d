import Testing

@testable import Taskig

/// The hand-off's state machine on its own: which side runs a job sent to a queue.
@Suite struct QueueHandOffStateTests {
    private typealias State = QueueHandOffState<String, String>

    @Test func aJobSentWhileNoHolderWaitsGoesToTheQueueAndIsKept() {
        var state = State()
        let job = ClaimableJob {}
        guard case .sendToQueue = state.send(job, to: "q") else {
            Issue.record("a job with no waiter went elsewhere")
            return
        }
        #expect(state.keptCount == 1)
        // A holder that begins to wait takes it, as the queue would.
        state.beginWaiting("holder")
        #expect(state.takeForWaiter().count == 1)
        #expect(state.keptCount == 0)
    }

    @Test func aJobSentWhileTheHolderWaitsWakesItsInnermostWait() {
        var state = State()
        state.beginWaiting("outer")
        state.beginWaiting("inner")
        guard case .wake(let woken) = state.send(ClaimableJob {}, to: "q") else {
            Issue.record("a job sent to a waiting holder did not wake it")
            return
        }
        #expect(woken == "inner")
    }

    @Test func anInnerWaitThatEndsWithJobsLeftWakesTheOuterOne() {
        var state = State()
        state.beginWaiting("outer")
        state.beginWaiting("inner")
        _ = state.send(ClaimableJob {}, to: "q")
        guard case .wake(let woken) = state.endWaiting() else {
            Issue.record("the job left by the inner wait woke nobody")
            return
        }
        #expect(woken == "outer")
    }

    @Test func theLastWaitSendsTheQueueTheJobsItWasHandedAndDidNotRun() {
        var state = State()
        _ = state.send(ClaimableJob {}, to: "q")  // sent to the queue already
        state.beginWaiting("holder")
        _ = state.send(ClaimableJob {}, to: "q")  // handed to the holder alone
        guard case .sendToQueue(let left) = state.endWaiting() else {
            Issue.record("the job handed to the holder was not sent to the queue")
            return
        }
        #expect(left.map(\.queue) == ["q"], "with the queue it is bound for")
        #expect(!state.hasWaiter)
    }

    @Test func claimedJobsAreDroppedAsTheQueueRunsThem() {
        var state = State()
        let jobs = (0..<3).map { _ in ClaimableJob {} }
        for job in jobs { _ = state.send(job, to: "q") }
        for job in jobs {
            _ = job.claim()
            state.queueRanAJob()
        }
        #expect(state.keptCount == 0)
        state.beginWaiting("holder")
        let end = state.endWaiting()
        guard case .none = end else {
            Issue.record("a wait with nothing kept had something to do at its end")
            return
        }
    }
}
