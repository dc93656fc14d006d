import Dispatch
import Synchronization

/// A live progress line for a batch, redrawn by a timer on the main queue.
///
/// The point of the timer being on `DispatchQueue.main`: the main thread is blocked inside
/// `awaitAll` the whole time, and the line still moves, because Taskig's waits keep the main
/// queue serviced. The timer counts its ticks even when nothing is drawn (output piped), so
/// the demo can report that the main queue stayed live either way.
final class ProgressLine {
    private let timer: any DispatchSourceTimer
    private let ticks = Ticks()
    private let console: Console

    /// Starts redrawing "`label` [bar] done/total, N running" for `progress` every 50 ms.
    init(label: String, total: Int, progress: BatchProgress, console: Console) {
        self.console = console
        timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now(), repeating: .milliseconds(50))
        timer.setEventHandler { [ticks] in
            ticks.count.add(1, ordering: .relaxed)
            let now = progress.snapshot
            let bar = Self.bar(done: now.done, total: total)
            console.redraw("   \(label)  \(bar)  \(now.done)/\(total), \(now.running) running")
        }
        timer.resume()
    }

    /// Stops the timer, erases the line, and returns how many times the timer fired.
    func finish() -> Int {
        timer.cancel()
        console.eraseLine()
        return ticks.count.load(ordering: .relaxed)
    }

    private static func bar(done: Int, total: Int, width: Int = 24) -> String {
        let filled = total == 0 ? width : width * done / total
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }

    /// The timer's tick count, shared with its handler.
    private final class Ticks: Sendable {
        let count = Atomic(0)
    }
}
