import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct AwaitAllTests {
    @Test func valuesComeBackInInputOrder() async throws {
        let tasks = (0..<50).map { i in
            ThrowableTask { () -> Int in
                sleep(seconds: Double((i * 7) % 5) / 1000)
                return i * i
            }
        }
        #expect(try await withWatchdog { try tasks.awaitAll() } == (0..<50).map { $0 * $0 })
    }

    @Test func optionalValuesKeepTheirNils() async throws {
        let tasks: [ThrowableTask<String?>] = [ThrowableTask { "a" }, ThrowableTask { nil }, ThrowableTask { "c" }]
        let values = try await withWatchdog { try tasks.awaitAll() }
        #expect(values == ["a", nil, "c"])
        let plain: [Task<Int?>] = [Task { nil }, Task { 2 }]
        #expect(plain.awaitAll() == [nil, 2])
    }

    @Test func noTasksGiveNoValues() throws {
        #expect(try [ThrowableTask<Int>]().awaitAll().isEmpty)
        #expect([Task<Int>]().awaitAll().isEmpty)
        #expect([ThrowableTask<Int>]().awaitAllResults().isEmpty)
    }

    @Test func concurrencyIsReallyTheNumberRunningAtOnceEvenWhenTasksBlock() async throws {
        let probe = ConcurrencyProbe()
        let tasks = (0..<20).map { _ in Task { probe.measure { sleep(seconds: 0.05) } } }
        let (_, seconds) = try #require(await withWatchdog { timed { tasks.awaitAll(concurrency: 5) } })
        // Under ThreadSanitizer threads start too slowly for every lane to find work.
        #expect(timingSlack > 1 ? (2...5).contains(probe.peak) : probe.peak == 5)
        #expect(seconds >= 0.19)
        #expect(seconds < 2 * timingSlack)
    }

    @Test func fiftyBlockingTasksRunAtOnce() async throws {
        let probe = ConcurrencyProbe()
        let tasks = (0..<400).map { _ in Task { probe.measure { sleep(seconds: 0.02) } } }
        let (_, seconds) = try #require(await withWatchdog { timed { tasks.awaitAll(concurrency: 50) } })
        #expect(timingSlack > 1 ? (2...50).contains(probe.peak) : probe.peak == 50)
        #expect(seconds < 1.5 * timingSlack)
    }

    @Test func tasksThatStartBlockingLateStillReachFullConcurrency() async throws {
        let probe = ConcurrencyProbe()
        let quick = (0..<5_000).map { i in Task { i } }
        // Tasks long enough that lanes started late on a busy machine (the suite runs tests
        // side by side) still overlap the first ones.
        let blocking = (0..<40).map { i in
            Task {
                probe.measure { sleep(seconds: 0.1) }; return i
            }
        }
        let (values, seconds) = try #require(
            await withWatchdog { timed { (quick + blocking).awaitAll(concurrency: 20) } })
        #expect(values == Array(0..<5_000) + Array(0..<40))
        #expect(timingSlack > 1 ? (2...20).contains(probe.peak) : probe.peak == 20, "peak \(probe.peak), \(seconds) s")
        // Two waves of 100 ms once every lane runs, and one more at most for the tasks a lane
        // took in one chunk and held while it blocked in the first; one lane alone would
        // take 4 s.
        #expect(seconds < 0.8 * timingSlack)
    }

    @Test func onceTheLanesWereFoundStuckTheyTakeOneTaskAtATime() async throws {
        // The first tasks block, so the ramp finds the lanes stuck. The quick tasks after
        // them would let lanes grow their chunks again, and a lane that then took several of
        // the blocking tasks at the end in one chunk would hold them back while it blocks in
        // the first one.
        let probe = ConcurrencyProbe()
        let first = (0..<20).map { i in
            Task { () -> Int in
                sleep(seconds: 0.03)
                return -i
            }
        }
        let quick = (0..<3_000).map { i in Task { i } }
        let blocking = (0..<20).map { i in
            Task {
                probe.measure { sleep(seconds: 0.1) }; return i
            }
        }
        let (values, seconds) = try #require(
            await withWatchdog { timed { (first + quick + blocking).awaitAll(concurrency: 20) } })
        #expect(values == (0..<20).map { -$0 } + Array(0..<3_000) + Array(0..<20))
        #expect(timingSlack > 1 ? (2...20).contains(probe.peak) : probe.peak == 20, "peak \(probe.peak)")
        // One wave of the first tasks, then one of the blocking ones.
        #expect(seconds < 0.5 * timingSlack)
    }

    @Test func concurrencyOneRunsStrictlyInOrderOneAfterTheOther() async throws {
        let probe = ConcurrencyProbe()
        let order = LockedValue<[Int]>([])
        let tasks = (0..<30).map { i in
            ThrowableTask { () -> Int in
                probe.measure {
                    order.update { $0.append(i) }
                    sleep(seconds: 0.001)
                }
                return i
            }
        }
        #expect(try await withWatchdog { try tasks.awaitAll(concurrency: 1) } == Array(0..<30))
        #expect(order.value == Array(0..<30))
        #expect(probe.peak == 1)
    }

    @Test func theFirstFailureIsThrownAtOnceNothingMoreStartsAndRunningTasksAreCancelled() async throws {
        let started = LockedValue<Set<Int>>([])
        let slowStarted = DispatchSemaphore(value: 0)
        let slow = ThrowableTask { () -> Int in
            started.update { _ = $0.insert(1) }
            slowStarted.signal()
            sleep(seconds: 3)
            return 1
        }
        let failing = ThrowableTask { () -> Int in
            started.update { _ = $0.insert(0) }
            // Fail only once the slow task runs, so that there is a running task to cancel.
            _ = slowStarted.wait(timeout: .now() + 10)
            sleep(seconds: 0.05)
            throw TestError(0)
        }
        let never = (2..<12).map { i in
            ThrowableTask { () -> Int in
                started.update { _ = $0.insert(i) }
                return i
            }
        }
        let tasks = [failing, slow] + never
        let (result, seconds) = try #require(
            await withWatchdog {
                timed { Result { try tasks.awaitAll(concurrency: 2) } }
            })
        #expect(throws: TestError(0)) { try result.get() }
        #expect(seconds < 1 * timingSlack)
        #expect(slow.isCancelled)
        sleep(seconds: 0.1)
        #expect(started.value == [0, 1])
    }

    @Test func allResultsLetsEveryTaskSettle() async throws {
        let tasks = (0..<6).map { i in
            ThrowableTask { () -> Int in
                if i % 2 == 1 { throw TestError(i) }
                return i
            }
        }
        let results = try #require(await withWatchdog { tasks.awaitAllResults(concurrency: 3) })
        #expect(results.count == 6)
        for (i, result) in results.enumerated() {
            if i % 2 == 1 {
                #expect(throws: TestError(i)) { try result.get() }
            } else {
                #expect(try result.get() == i)
            }
        }
    }

    @Test func worksOnAnySequence() throws {
        let lazyTasks = (0..<5).lazy.map { i in Task { i + 1 } }
        #expect(lazyTasks.awaitAll() == [1, 2, 3, 4, 5])
    }

    @Test func largeCollectionsOfTrivialTasks() async throws {
        let tasks = (0..<100_000).map { i in Task { i } }
        let values = try await withWatchdog(seconds: 30) { tasks.awaitAll() }
        #expect(values == Array(0..<100_000))
    }

    @Test func lanesOnACustomConcurrentQueue() async throws {
        let queue = DispatchQueue(label: "taskig.test.lanes", attributes: .concurrent)
        let tasks = (0..<10).map { i in Task { i } }
        #expect(try await withWatchdog { tasks.awaitAll(queue, concurrency: 3) } == Array(0..<10))
    }
}
