import Foundation

/// Where the demo writes, and how it dresses its output.
///
/// On a terminal: bold headers, colours and a progress line redrawn in place. Piped or
/// redirected: plain lines, with no escape codes and no carriage returns, so the output can
/// be read by `grep`, diffed, or pasted. Everything is written unbuffered through one file
/// handle, so the progress line (drawn from a main-queue timer) and the report lines never
/// come out of order.
struct Console: Sendable {
    /// Whether the progress line is redrawn in place (stdout is a terminal that understands it).
    let isInteractive: Bool
    /// Whether text is styled with ANSI escape codes.
    let isStyled: Bool

    /// The console for standard output, styled when it is a terminal. `NO_COLOR` (see
    /// no-color.org) turns the styling off; `TERM=dumb` turns off the redrawing too.
    static func standardOutput() -> Console {
        let environment = ProcessInfo.processInfo.environment
        let interactive = isatty(STDOUT_FILENO) == 1 && environment["TERM"] != "dumb"
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        return Console(isInteractive: interactive, isStyled: interactive && !noColor)
    }

    /// Writes `text` and a newline.
    func line(_ text: String = "") {
        write(text + "\n")
    }

    /// A section header, after a blank line.
    func header(_ text: String) {
        line()
        line(style(text, "1"))
    }

    /// Bold, when styled.
    func bold(_ text: String) -> String { style(text, "1") }
    /// Dimmed, for explanations, when styled.
    func dim(_ text: String) -> String { style(text, "2") }
    /// Green, for what went as hoped, when styled.
    func green(_ text: String) -> String { style(text, "32") }
    /// Yellow, for expected failures the demo provokes, when styled.
    func yellow(_ text: String) -> String { style(text, "33") }
    /// Red, for real failures, when styled.
    func red(_ text: String) -> String { style(text, "31") }

    /// Replaces the current line with `text`; does nothing unless interactive.
    func redraw(_ text: String) {
        guard isInteractive else { return }
        write("\r" + text + "\u{1B}[K")
    }

    /// Erases what ``redraw(_:)`` drew; does nothing unless interactive.
    func eraseLine() {
        guard isInteractive else { return }
        write("\r\u{1B}[K")
    }

    /// Writes a message and a newline to standard error, never styled.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    private func style(_ text: String, _ code: String) -> String {
        isStyled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
