import CoreFoundation
import Dispatch
import Foundation

/// How the main thread sleeps in a wait: in the main run loop, so that blocks sent to
/// `DispatchQueue.main` keep running, until a wake-up or a deadline.
///
/// It sleeps without a time limit unless the wait has a deadline: for every turn with a limit,
/// swift-corelibs-foundation arms a Dispatch timer whose handlers run on Dispatch's own
/// threads. What wakes it is a run-loop source of its own, signalled by a completion or by
/// work handed to the main thread: a block sent to the main queue would not do, since inside
/// a main-queue block (a wait nested in one) the run loop does not service the main queue, but
/// it does handle a signalled source. The source is in the run loop only while this wait
/// sleeps, so that a user's own run of the loop is not kept from returning.
@usableFromInline
final class MainThreadWait: Sendable {
    /// The source of the sleep under way, if any, and whether a wake-up came since the last one.
    private let state = LockedState<(source: CFRunLoopSource?, isWoken: Bool)>((nil, false))

    @usableFromInline
    init() {}

    /// Ends the sleep under way, or the next one before it begins; from any thread.
    @usableFromInline
    func wake() {
        let source = state.withLock { state in
            state.isWoken = true
            return state.source
        }
        guard let source else { return }
        CFRunLoopSourceSignal(source)
        CFRunLoopWakeUp(CFRunLoopGetMain())
    }

    /// Forgets the wake-ups so far: the caller looks at what they were for next.
    @usableFromInline
    func clearWakeUps() {
        state.withLock { $0.isWoken = false }
    }

    /// Runs the main run loop until a wake-up, a source or block handled, or `deadline`.
    @usableFromInline
    func sleep(until deadline: DispatchTime?) {
        var context = CFRunLoopSourceContext(
            version: 0, info: nil, retain: nil, release: nil, copyDescription: nil, equal: nil, hash: nil,
            schedule: nil, cancel: nil, perform: { _ in })
        let source = CFRunLoopSourceCreate(kCFAllocatorDefault, 0, &context)
        let isWoken = state.withLock { state in
            state.source = source
            return state.isWoken
        }
        defer {
            state.withLock { $0.source = nil }
            CFRunLoopSourceInvalidate(source)
        }
        guard !isWoken else { return }
        CFRunLoopAddSource(CFRunLoopGetMain(), source, Self.defaultMode)
        var seconds = Self.noLimit
        if let deadline {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline.uptimeNanoseconds else { return }
            seconds = Double(deadline.uptimeNanoseconds - now) / 1e9
        }
        _ = CFRunLoopRunInMode(Self.defaultMode, seconds, true)
    }

    /// Handles what is ready in the main run loop (main-queue blocks among it) without
    /// sleeping and without arming a timer.
    @usableFromInline
    static func serviceWithoutSleeping() {
        _ = CFRunLoopRunInMode(defaultMode, 0, true)
    }

    /// Longer than the run loop's longest timed turn (about 16 years), which it then treats as
    /// having no limit.
    private static let noLimit: CFTimeInterval = 1e10

    private static var defaultMode: CFRunLoopMode { Platform.defaultRunLoopMode }
}
