import Foundation
import Testing

@testable import Taskig

/// How many processors collections count on: only those this process may run on.
@Suite struct ActiveProcessorsTests {
    @Test func countsTheProcessorsOfACPUList() {
        #expect(ActiveProcessors.processorCount(inList: "\t0-3,8,10-11") == 7)
        #expect(ActiveProcessors.processorCount(inList: "0") == 1)
        #expect(ActiveProcessors.processorCount(inList: " 2-2 ") == 1)
        #expect(ActiveProcessors.processorCount(inList: "") == nil)
        #expect(ActiveProcessors.processorCount(inList: "3-1") == nil)
        #expect(ActiveProcessors.processorCount(inList: "0-1-2") == nil)
        #expect(ActiveProcessors.processorCount(inList: "0,x") == nil)
        #expect(ActiveProcessors.processorCount(inList: "-1") == nil)
    }

    @Test func roundsACPUQuotaUpToWholeProcessors() {
        #expect(ActiveProcessors.processorCount(quota: "150000", period: "100000\n") == 2)
        #expect(ActiveProcessors.processorCount(quota: "50000", period: "100000") == 1)
        #expect(ActiveProcessors.processorCount(quota: "200000", period: "100000") == 2)
        #expect(ActiveProcessors.processorCount(quota: "-1\n", period: "100000") == nil)
        #expect(ActiveProcessors.processorCount(quota: "max", period: "100000") == nil)
        #expect(ActiveProcessors.processorCount(quota: "100000", period: "0") == nil)
    }

    /// Under `taskset -c 0` (CI runs this suite so) the machine's two processors count as one.
    @Test func countsOnlyTheProcessorsThisProcessMayRunOn() {
        #expect(ActiveProcessors.count >= 1)
        #expect(ActiveProcessors.count <= allowedCoreCount)
        #if os(Linux)
            let hasQuota = ["/sys/fs/cgroup/cpu.max", "/sys/fs/cgroup/cpu/cpu.cfs_quota_us"].contains { path in
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
                return !text.hasPrefix("max") && !text.hasPrefix("-1")
            }
            if !hasQuota { #expect(ActiveProcessors.count == allowedCoreCount) }
        #endif
    }
}
