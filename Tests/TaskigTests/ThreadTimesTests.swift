import Foundation
import Synchronization
import Testing

@testable import Taskig

/// Reading another thread's time on a core and its state, which a collection's looks use to
/// tell a lane that blocks from one that computes.
@Suite struct ThreadTimesTests {
    /// Starts a thread that runs `body` until told to stop, and returns its times once it runs.
    private func startThread(
        _ body: @escaping @Sendable (_ shouldStop: () -> Bool) -> Void
    ) -> (times: ThreadTimes, stop: @Sendable () -> Void) {
        let times = LockedState<ThreadTimes?>(nil)
        let started = DispatchSemaphore(value: 0)
        let stopped = Atomic(false)
        Thread.detachNewThread {
            times.withLock { $0 = ThreadTimes.ofCurrentThread() }
            started.signal()
            body { stopped.load(ordering: .relaxed) }
        }
        started.wait()
        return (times.withLock { $0 }!, { stopped.store(true, ordering: .relaxed) })
    }

    @Test func aThreadThatWaitsIsBlockedAndUsesAlmostNoCore() throws {
        // Never woken until the test ends, so that once it waits, it is found waiting however
        // long a loaded machine left it without a core before it got there.
        let wake = DispatchSemaphore(value: 0)
        let (times, stop) = startThread { _ in wake.wait() }
        defer {
            stop()
            wake.signal()
        }
        var first = try #require(times.sample())
        let deadline = DispatchTime.now() + 10 * timingSlack
        while !first.isBlocked && DispatchTime.now() < deadline {
            usleep(1_000)
            first = try #require(times.sample())
        }
        usleep(50_000)
        let second = try #require(times.sample())
        #expect(first.isBlocked && second.isBlocked)
        // A thread that sleeps uses microseconds of a core, even under ThreadSanitizer.
        #expect(second.onCore - first.onCore < 25_000_000)
    }

    @Test func aThreadThatComputesIsReadyAndUsesItsCore() throws {
        let (times, stop) = startThread { shouldStop in
            while !shouldStop() {}
        }
        defer { stop() }
        let first = try #require(times.sample())
        // Reading the clock ourselves would keep a core: sleeping leaves one for the spinner.
        usleep(100_000)
        let second = try #require(times.sample())
        #expect(!second.isBlocked)
        // A loaded machine may leave the spinner only a sliver of a core; it still gets some.
        #expect(second.onCore > first.onCore)
    }

    @Test func aThreadThatEndedHasNoTimes() throws {
        let (times, stop) = startThread { _ in }
        stop()
        var sample = times.sample()
        let deadline = Date().addingTimeInterval(10)
        while sample != nil && Date() < deadline {
            usleep(1_000)
            sample = times.sample()
        }
        #expect(sample == nil)
    }
}
