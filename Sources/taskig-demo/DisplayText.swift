import Foundation

extension Int {
    /// The number with thousands separated by commas ("18,204"), the same in every locale so
    /// that the output reads the same everywhere.
    var groupedText: String {
        let digits = String(magnitude)
        var grouped = self < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return grouped
    }

    /// The number followed by `noun`, in the plural unless the number is 1 ("3 files", "1 URL").
    func counted(_ noun: String) -> String {
        "\(groupedText) \(noun)\(self == 1 ? "" : "s")"
    }

    /// The number as a size in bytes: "512 B", "64.0 KiB", "4.0 MiB".
    var byteCountText: String {
        switch self {
        case ..<1024: return "\(self) B"
        case ..<(1024 * 1024): return String(format: "%.1f KiB", Double(self) / 1024)
        default: return String(format: "%.1f MiB", Double(self) / (1024 * 1024))
        }
    }
}

extension Double {
    /// A number of seconds as whole milliseconds ("1,206 ms").
    var millisecondsText: String {
        "\(Int((self * 1000).rounded()).groupedText) ms"
    }
}
