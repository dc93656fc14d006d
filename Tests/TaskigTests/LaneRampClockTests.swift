import Dispatch
import Foundation
import Testing

@testable import Taskig

@Suite struct LaneRampClockTests {
    @Test func looksComeWhenDueAndAsOftenAsAsked() async throws {
        let clock = LaneRampClock()
        let looks = LockedValue<[Double]>([])
        let start = DispatchTime.now()
        let done = DispatchSemaphore(value: 0)
        clock.watch(after: 0.01) {
            let count = looks.update { times in
                times.append(secondsSince(start))
                return times.count
            }
            if count == 3 { done.signal() }
            return count < 3 ? 0.01 : nil
        }
        let finished = try await withWatchdog { done.wait(timeout: .now() + 5 * timingSlack) == .success }
        #expect(finished == true)
        let times = looks.value
        #expect(times.count == 3)
        #expect(times.first.map { $0 >= 0.01 } == true)
        #expect(times.last.map { $0 >= 0.03 && $0 < 1 * timingSlack } == true)
        // A look that returned nil is never repeated.
        try await _Concurrency.Task.sleep(nanoseconds: 50_000_000)
        #expect(looks.value.count == 3)
    }

    @Test func aWatchDueSoonerThanTheSleepingClockWakesItUp() async throws {
        let clock = LaneRampClock()
        let order = LockedValue<[String]>([])
        let done = DispatchSemaphore(value: 0)
        clock.watch(after: 60) {
            order.update { $0.append("late") }
            return nil
        }
        let start = DispatchTime.now()
        clock.watch(after: 0.01) {
            order.update { $0.append("soon") }
            done.signal()
            return nil
        }
        let seconds = try await withWatchdog { () -> Double in
            done.wait()
            return secondsSince(start)
        }
        #expect(order.value == ["soon"])
        #expect(seconds.map { $0 < 1 * timingSlack } == true)
    }

    @Test func aClockKeepsTickingForAWhileAfterItsLastWatchThenParks() async throws {
        let clock = LaneRampClock(tick: 2_000_000, tickingPeriod: 200_000_000)
        let looked = DispatchSemaphore(value: 0)
        let states = try await withWatchdog { () -> (whileTicking: Bool, later: Bool, secondLookSeconds: Double) in
            clock.watch(after: 0) {
                looked.signal()
                return nil
            }
            looked.wait()
            sleep(seconds: 0.02)
            let parkedWhileTicking = clock.isParked
            let deadline = DispatchTime.now() + 5 * timingSlack
            while !clock.isParked && DispatchTime.now() < deadline { sleep(seconds: 0.01) }
            let parkedLater = clock.isParked
            // A parked clock is signalled, so a watch due at once is looked at at once.
            let start = DispatchTime.now()
            clock.watch(after: 0) {
                looked.signal()
                return nil
            }
            looked.wait()
            return (parkedWhileTicking, parkedLater, secondsSince(start))
        }
        #expect(states?.whileTicking == false, "20 ms after its last watch began, the clock still ticks")
        #expect(states?.later == true, "once the ticking period is over, the clock parks")
        #expect(states.map { $0.secondLookSeconds < 0.1 * timingSlack } == true)
    }

    @Test func aWatchJoiningATickingClockIsLookedAtWithinATick() async throws {
        let clock = LaneRampClock(tick: 5_000_000, tickingPeriod: 10_000_000_000)
        let looked = DispatchSemaphore(value: 0)
        let delays = try await withWatchdog { () -> [Double] in
            (0..<5).map { _ in
                let start = DispatchTime.now()
                clock.watch(after: 0) {
                    looked.signal()
                    return nil
                }
                looked.wait()
                return secondsSince(start)
            }
        }
        #expect(delays.map { $0.allSatisfy { $0 < 0.005 + 0.1 * timingSlack } } == true)
    }
}
