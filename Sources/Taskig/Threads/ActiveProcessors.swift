import Foundation

/// The number of processors this process may use, read when first needed: how many lanes a
/// collection starts, and how many may move at once before a look starts another.
///
/// On Linux, `ProcessInfo.activeProcessorCount` counts the machine's online processors. A
/// process pinned to fewer (`taskset`, a container's cpuset) or given a share of fewer (a
/// container's CPU quota, as `docker run --cpus 2` sets) would then start a lane per
/// processor it cannot use, and the lanes would take turns on the ones it can. So the count
/// is the smallest of the online processors, those in the process's affinity mask, and its
/// CPU quota rounded up; what cannot be read does not count. Those files are Linux's: elsewhere
/// they do not exist, and the count is Foundation's.
@usableFromInline
enum ActiveProcessors {
    @usableFromInline
    static let count: Int = {
        var count = ProcessInfo.processInfo.activeProcessorCount
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let allowed = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }),
            let processors = processorCount(inList: allowed.dropFirst("Cpus_allowed_list:".count))
        {
            count = min(count, processors)
        }
        if let quota = cgroupQuota() { count = min(count, quota) }
        return max(1, count)
    }()

    /// How many processors a CPU list names (`0-3,8,10-11`, as `Cpus_allowed_list` in
    /// `/proc/self/status` shows them); `nil` when it is not one.
    static func processorCount(inList list: some StringProtocol) -> Int? {
        var count = 0
        for range in list.split(separator: ",") {
            let bounds = range.split(separator: "-", omittingEmptySubsequences: false)
            guard
                let first = bounds.first.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
                let last = bounds.last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
                bounds.count <= 2, first >= 0, last >= first
            else { return nil }
            count += last - first + 1
        }
        return count > 0 ? count : nil
    }

    /// How many processors a CPU quota of `quota` microseconds every `period` grants, rounded
    /// up; `nil` when there is no quota (cgroup v1 writes -1, v2 `max`).
    static func processorCount(quota: some StringProtocol, period: some StringProtocol) -> Int? {
        guard let quota = Int(quota.trimmingCharacters(in: .whitespacesAndNewlines)),
            let period = Int(period.trimmingCharacters(in: .whitespacesAndNewlines)),
            quota > 0, period > 0
        else { return nil }
        return (quota + period - 1) / period
    }

    /// The CPU quota of the process's cgroup in processors, from cgroup v2's `cpu.max`
    /// (`QUOTA PERIOD`) or v1's `cpu.cfs_quota_us` and `cpu.cfs_period_us`, as mounted
    /// where a container sees its own group.
    private static func cgroupQuota() -> Int? {
        if let line = try? String(contentsOfFile: "/sys/fs/cgroup/cpu.max", encoding: .utf8) {
            let fields = line.split(separator: " ")
            return fields.count == 2 ? processorCount(quota: fields[0], period: fields[1]) : nil
        }
        guard let quota = try? String(contentsOfFile: "/sys/fs/cgroup/cpu/cpu.cfs_quota_us", encoding: .utf8),
            let period = try? String(contentsOfFile: "/sys/fs/cgroup/cpu/cpu.cfs_period_us", encoding: .utf8)
        else { return nil }
        return processorCount(quota: quota, period: period)
    }
}
