import Foundation

/// The warning a debug build prints when a blocking wait parks inside a Swift task (a plain
/// function called from `async` code, which `noasync` cannot see): it holds one of the few
/// threads of Swift's cooperative pool, and work that needs the pool may then never run.
/// Printed once per call site; the wait report marks such waits in every build.
enum SwiftTaskWaitWarning {
    private static let warnedSites = LockedState<Set<String>>([])

    static func warnOnce(at site: StaticCallSite) {
        #if DEBUG
            let place = site.callSite.description
            guard warnedSites.withLock({ $0.insert(place).inserted }) else { return }
            FileHandle.standardError.write(
                Data(
                    ("Taskig: warning: the blocking wait at \(place) parks inside a Swift task, holding one of the "
                        + "threads of Swift's cooperative pool; work that needs that pool may never run. From async "
                        + "code, use 'try await task.value' (reported once per call site, in debug builds)\n").utf8))
        #endif
    }
}
