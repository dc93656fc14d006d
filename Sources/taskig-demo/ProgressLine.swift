import Dispatch
import Foundation
import Synchronization

/// How many items are done; counted from any thread.
final class ProgressCounter: Sendable {
    private let done = Atomic(0)

    func advance() {
        done.add(1, ordering: .relaxed)
    }

    var value: Int { done.load(ordering: .relaxed) }
}

/// A live "done/total" line, redrawn by a timer on the main queue.
///
/// It shows that a blocking wait on the main thread keeps the main queue running: the
/// timer fires on `DispatchQueue.main` while the main thread is inside `awaitAll`. When the
/// output is not a terminal nothing is drawn, so piped output stays plain.
final class ProgressLine {
    let counter = ProgressCounter()
    private var timer: (any DispatchSourceTimer)?

    init(total: Int, label: String) {
        guard isatty(STDOUT_FILENO) == 1 else { return }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now(), repeating: .milliseconds(50))
        timer.setEventHandler { [counter] in
            Self.draw("\r  \(label): \(counter.value)/\(total)")
        }
        timer.resume()
        self.timer = timer
    }

    /// Stops redrawing and clears the line.
    func finish() {
        guard let timer else { return }
        timer.cancel()
        Self.draw("\r\u{1B}[K")
    }

    private static func draw(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
