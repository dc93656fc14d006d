import Dispatch
import Testing

@testable import Taskig

@Suite struct BriefSpinTests {
    @Test func aSpinEndsAsSoonAsItsConditionHolds() {
        var looks = 0
        let end = BriefSpin.until(atMost: 1_000_000_000) {
            looks += 1
            return looks == 3
        }
        #expect(end == .done)
        #expect(looks == 3)
    }

    @Test func aSpinGivesUpWhenItsTimeRunsOut() {
        let start = DispatchTime.now()
        let end = BriefSpin.until(atMost: 2_000_000) { false }
        #expect(end == .timedOut)
        #expect(secondsSince(start) >= 0.002)
        #expect(secondsSince(start) < 1 * timingSlack)
    }

    @Test func aSpinWhoseYieldComesBackLateReportsABusyProcessor() {
        // Every yield takes longer than no time at all.
        var looks = 0
        let end = BriefSpin.until(atMost: 1_000_000_000, yieldLimit: 0) {
            looks += 1
            return false
        }
        #expect(end == .processorBusy)
        #expect(looks == 1, "the spin ends at its first late yield")
    }
}
