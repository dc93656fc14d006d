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
}
