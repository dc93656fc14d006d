import Foundation

/// Putting a finished download at its destination so that the destination never holds a
/// partial file.
enum DownloadPlacement {
    /// A hidden file beside `destination` for the body to stream into: on the same file
    /// system, so that the final move is a rename.
    static func partFile(for destination: URL) -> URL {
        destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).part")
    }

    /// Renames `partFile` over `destination`, replacing a file already there in one step:
    /// POSIX `rename` replaces atomically, which a remove-then-move would not, and
    /// `FileManager.replaceItemAt` fails on Linux.
    static func move(_ partFile: URL, to destination: URL) throws {
        guard rename(partFile.path, destination.path) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }
}
