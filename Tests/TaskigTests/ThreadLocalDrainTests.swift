import Testing

@testable import Taskig

@Suite struct ThreadLocalDrainTests {
    /// What the items of one test did, on the test's thread.
    final class Log {
        var names: [String] = []
        var depth = 0
        var deepest = 0
    }

    /// An item that notes its name and how many items run around it, queues `children`, and
    /// then, with `runsQueuedBeforeReturning`, runs what is queued as a blocking item would.
    struct Step: DrainItem {
        let name: String
        var children: [Step] = []
        var runsQueuedBeforeReturning = false
        let log: Log

        func run() {
            log.depth += 1
            log.deepest = max(log.deepest, log.depth)
            log.names.append(name)
            for child in children { ThreadLocalDrainTests.drain.run(child) }
            if runsQueuedBeforeReturning {
                ThreadLocalDrainTests.drain.runQueued()
                log.names.append("\(name) returns")
            }
            log.depth -= 1
        }
    }

    /// An item that queues the next of `remaining` items.
    struct Countdown: DrainItem {
        let remaining: Int
        let log: Log

        func run() {
            log.depth += 1
            log.deepest = max(log.deepest, log.depth)
            if remaining > 0 { ThreadLocalDrainTests.countdown.run(Countdown(remaining: remaining - 1, log: log)) }
            log.names = ["\(remaining)"]
            log.depth -= 1
        }
    }

    static let drain = ThreadLocalDrain<Step>()
    static let countdown = ThreadLocalDrain<Countdown>()

    @Test func itemsSetOffByAnItemRunAfterItInTheOrderTheyCame() {
        let log = Log()
        let a = Step(name: "a", children: [Step(name: "a1", log: log)], log: log)
        let b = Step(name: "b", children: [Step(name: "b1", log: log), Step(name: "b2", log: log)], log: log)
        Self.drain.run(Step(name: "root", children: [a, b], log: log))
        #expect(log.names == ["root", "a", "b", "a1", "b1", "b2"])
        #expect(log.deepest == 1)
    }

    @Test func anItemAboutToBlockRunsWhatWasQueuedBehindItFirst() {
        let log = Log()
        let queued = [Step(name: "x", children: [Step(name: "x1", log: log)], log: log), Step(name: "y", log: log)]
        Self.drain.run(Step(name: "root", children: queued, runsQueuedBeforeReturning: true, log: log))
        #expect(log.names == ["root", "x", "y", "x1", "root returns"])
        #expect(log.deepest == 2)
    }

    @Test func aLoopOfAHundredThousandItemsRunsOnTheStackOfOne() {
        let log = Log()
        Self.countdown.run(Countdown(remaining: 100_000, log: log))
        #expect(log.names == ["0"])
        #expect(log.deepest == 1)
    }

    @Test func aThreadThatRunsNothingHasNothingToRun() {
        Self.drain.runQueued()
        let log = Log()
        Self.drain.run(Step(name: "alone", log: log))
        #expect(log.names == ["alone"])
    }
}
