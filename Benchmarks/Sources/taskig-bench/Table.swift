import Foundation

/// One line of the goal table.
struct TableRow {
    var row: String
    var taskig: String
    var baseline: String
    var ratio: String
    var goal: String
    /// `nil` when the line is for information only.
    var met: Bool?
}

/// Collects the lines and prints them as a markdown table as they arrive.
final class Table {
    private(set) var rows: [TableRow] = []

    func add(_ row: TableRow) {
        rows.append(row)
        let met = row.met.map { $0 ? "yes" : "**NO**" } ?? "—"
        FileHandle.standardError.write(
            "  · \(row.row): Taskig \(row.taskig) | baseline \(row.baseline) | \(row.ratio) | goal \(row.goal) | met: \(met)\n"
        )
    }

    var markdown: String {
        var lines = [
            "| row | Taskig | baseline | ratio | goal | met? |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for row in rows {
            let met = row.met.map { $0 ? "yes" : "**NO**" } ?? "—"
            lines.append("| \(row.row) | \(row.taskig) | \(row.baseline) | \(row.ratio) | \(row.goal) | \(met) |")
        }
        return lines.joined(separator: "\n")
    }
}

extension FileHandle {
    func write(_ string: String) {
        write(Data(string.utf8))
    }
}

func progress(_ message: String) {
    FileHandle.standardError.write("\(message)\n")
}

// MARK: - Formatting

func formatDuration(_ seconds: Double) -> String {
    switch seconds {
    case ..<1e-6: return String(format: "%.0f ns", seconds * 1e9)
    case ..<1e-4: return String(format: "%.2f µs", seconds * 1e6)
    case ..<1e-3: return String(format: "%.0f µs", seconds * 1e6)
    case ..<1: return String(format: "%.1f ms", seconds * 1e3)
    default: return String(format: "%.2f s", seconds)
    }
}

func formatRatio(_ value: Double) -> String {
    value >= 10 ? String(format: "%.0f×", value) : String(format: "%.2f×", value)
}

/// "Taskig 3.2× faster" or "Taskig 1.4× slower", from baseline time / Taskig time.
func speedup(_ baselineOverTaskig: Double) -> String {
    baselineOverTaskig >= 1
        ? "Taskig \(formatRatio(baselineOverTaskig)) faster" : "Taskig \(formatRatio(1 / baselineOverTaskig)) slower"
}

func formatBytes(_ bytes: Double) -> String {
    let magnitude = abs(bytes)
    switch magnitude {
    case ..<1024: return String(format: "%.0f B", bytes)
    case ..<(1024 * 1024): return String(format: "%.1f KiB", bytes / 1024)
    default: return String(format: "%.2f MiB", bytes / (1024 * 1024))
    }
}

func formatCount(_ n: Int) -> String {
    switch n {
    case 1_000_000...: return n % 1_000_000 == 0 ? "\(n / 1_000_000)M" : "\(n)"
    case 1_000...: return n % 1_000 == 0 ? "\(n / 1_000)k" : "\(n)"
    default: return "\(n)"
    }
}
