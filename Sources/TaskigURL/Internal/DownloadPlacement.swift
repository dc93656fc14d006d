import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Putting a finished download at its destination so that the destination never holds a
/// partial file.
enum DownloadPlacement {
    /// Moves `temporary` to `destination`, replacing a file already there.
    ///
    /// The file first moves next to the destination, under a hidden name (a copy, when the
    /// temporary directory is on another file system), then is renamed over it: POSIX
    /// `rename` replaces atomically, which a remove-then-move would not, and
    /// `FileManager.replaceItemAt` fails on Linux.
    static func move(_ temporary: URL, to destination: URL) throws {
        let staging = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).part")
        try FileManager.default.moveItem(at: temporary, to: staging)
        guard rename(staging.path, destination.path) == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            try? FileManager.default.removeItem(at: staging)
            throw POSIXError(code)
        }
    }
}
