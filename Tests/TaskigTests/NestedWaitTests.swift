import Dispatch
import Foundation
import Testing

@testable import Taskig

/// Nested blocking waits must never depend on Linux's global pool growing, which adds about
/// one thread per second once its threads block.
@Suite struct NestedWaitTests {
    @Test func twoThousandOuterTasksEachAwaitingAnInnerTask() async throws {
        let outer = (0..<2000).map { i in
            Task { () -> Int in
                Task { () -> Int in
                    sleep(seconds: 0.001)
                    return i
                }.await()
            }
        }
        let (values, seconds) = try #require(await withWatchdog(seconds: 20) { timed { outer.awaitAll() } })
        #expect(values == Array(0..<2000))
        // Beside two busy loops (load 13–25): 0.07–0.26 s debug, 0.08–0.44 s on one core, 0.25–1.1 s
        // ThreadSanitizer; waits that needed the global pool to grow stall for minutes.
        #expect(seconds < 5 * timingSlack)
    }

    @Test func twoThousandOuterTasksEachAwaitingAnInnerThrowableTask() async throws {
        let outer = (0..<2000).map { i in
            ThrowableTask { () throws -> Int in
                try ThrowableTask { () -> Int in
                    sleep(seconds: 0.001)
                    return i
                }.await()
            }
        }
        let (values, seconds) = try #require(await withWatchdog(seconds: 20) { try timed { try outer.awaitAll() } })
        #expect(values == Array(0..<2000))
        // Beside two busy loops (load 13–25): 0.07–0.26 s debug, 0.08–0.44 s on one core, 0.25–1.1 s
        // ThreadSanitizer; waits that needed the global pool to grow stall for minutes.
        #expect(seconds < 5 * timingSlack)
    }

    @Test func threeLevelsOfNestedAwaitAll() async throws {
        @Sendable func leaves() -> Int {
            (0..<10).map { _ in
                Task { () -> Int in
                    sleep(seconds: 0.001); return 1
                }
            }.awaitAll().reduce(0, +)
        }
        @Sendable func middle() -> Int {
            (0..<10).map { _ in Task { leaves() } }.awaitAll().reduce(0, +)
        }
        let (total, seconds) = try #require(
            await withWatchdog(seconds: 20) {
                timed { (0..<10).map { _ in Task { middle() } }.awaitAll().reduce(0, +) }
            })
        #expect(total == 1000)
        // Beside two busy loops (load 13–25): 0.07–0.26 s debug, 0.08–0.44 s on one core, 0.25–1.1 s
        // ThreadSanitizer; waits that needed the global pool to grow stall for minutes.
        #expect(seconds < 5 * timingSlack)
    }

    @Test func manyDispatchBlocksEachAwaitingATaskFinish() throws {
        // Peers that park a global worker and send the work to `global()` stall here for
        // minutes: 200 blocked workers, each waiting for a block that needs a free worker.
        let group = DispatchGroup()
        let sum = LockedValue(0)
        for i in 0..<200 {
            DispatchQueue.global().async(group: group) {
                let value = Task { () -> Int in
                    sleep(seconds: 0.002); return i
                }.await()
                sum.update { $0 += value }
            }
        }
        #expect(group.wait(timeout: .now() + 15) == .success)
        #expect(sum.value == (0..<200).reduce(0, +))
    }

    @Test func awaitRunsGlobalQueueWorkOnTheWaitingThread() async throws {
        let waiter = LockedValue<String?>(nil)
        let worker = try await withWatchdog { () -> String? in
            waiter.set(Thread.current.description)
            return Task { Thread.current.description }.await()
        }
        #expect(worker == waiter.value)
    }
}
