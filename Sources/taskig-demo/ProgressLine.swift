import Dispatch
import Foundation
import Synchronization

/// A live progress line for a batch, drawn from the Foundation `Progress` the batch's wait
/// counts into, by a timer on the main queue.
///
/// The point of the timer being on `DispatchQueue.main`: the main thread is blocked inside
/// `awaitAllResults` the whole time, and the line still moves, because Taskig's waits keep the
/// main queue serviced. On a terminal the line is redrawn in place: a bar, the count, the
/// rate and the time left. Piped, it becomes a plain line each time another quarter of the
/// batch is done. The timer counts its ticks either way, so the demo can report that the
/// main queue stayed live.
final class ProgressLine {
    private let timer: any DispatchSourceTimer
    private let ticks = Ticks()
    private let console: Console

    /// Starts drawing "`label` [bar] done/total files, rate/s, time left" for `progress`
    /// every 50 ms.
    init(label: String, progress: Progress, console: Console) {
        self.console = console
        let started = DispatchTime.now()
        timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now(), repeating: .milliseconds(50))
        timer.setEventHandler { [ticks] in
            ticks.count.add(1, ordering: .relaxed)
            let done = Int(progress.completedUnitCount)
            let total = Int(progress.totalUnitCount)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            let figures = Self.figures(done: done, total: total, seconds: seconds)
            if console.isInteractive {
                console.redraw("   \(label)  \(Self.bar(done: done, total: total))  \(figures)")
            } else if ticks.reachedAnotherQuarter(done: done, total: total) {
                console.line("   \(label): \(figures)")
            }
        }
        timer.resume()
    }

    /// Stops the timer, erases the line, and returns how many times the timer fired.
    func finish() -> Int {
        timer.cancel()
        console.eraseLine()
        return ticks.count.load(ordering: .relaxed)
    }

    /// "37/120 files, 812/s, 0.1 s left": the rate so far, and the time the rest takes at it.
    private static func figures(done: Int, total: Int, seconds: Double) -> String {
        guard done > 0, seconds > 0 else { return "\(done)/\(total) files" }
        let rate = Double(done) / seconds
        let left = Double(total - done) / rate
        return "\(done)/\(total) files, \(Int(rate.rounded()))/s, " + String(format: "%.1f s left", left)
    }

    private static func bar(done: Int, total: Int, width: Int = 24) -> String {
        let filled = total == 0 ? width : width * done / total
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }

    /// The timer's tick count and the last quarter it reported, shared with its handler.
    private final class Ticks: Sendable {
        let count = Atomic(0)
        private let reportedQuarter = Atomic(0)

        /// Whether `done` reached a quarter of the batch that was not reported yet.
        func reachedAnotherQuarter(done: Int, total: Int) -> Bool {
            guard total > 0 else { return false }
            let quarter = 4 * done / total
            guard quarter > reportedQuarter.load(ordering: .relaxed) else { return false }
            reportedQuarter.store(quarter, ordering: .relaxed)
            return true
        }
    }
}
