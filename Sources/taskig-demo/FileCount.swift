import Foundation
import Taskig

/// What one file holds.
struct FileCount: Sendable {
    let path: String
    let lines: Int
    let words: Int
    let bytes: Int

    /// A task that reads and counts one file.
    static func task(for file: URL) -> ThrowableTask<FileCount> {
        ThrowableTask {
            let data = try Data(contentsOf: file)
            var lines = 0
            var words = 0
            var inWord = false
            for byte in data {
                if byte == UInt8(ascii: "\n") { lines += 1 }
                let isSpace = byte == 0x20 || (0x09...0x0D).contains(byte)
                if !isSpace && !inWord { words += 1 }
                inWord = !isSpace
            }
            return FileCount(path: file.path, lines: lines, words: words, bytes: data.count)
        }
    }

    /// The regular files under `directory`, skipping hidden ones and build folders.
    static func files(under directory: URL) -> [URL] {
        let keys: [URLResourceKey] = [.isRegularFileKey]
        guard
            let walker = FileManager.default.enumerator(
                at: directory,
                includingPropertiesForKeys: keys,
                options: [.skipsHiddenFiles]
            )
        else { return [] }
        var files: [URL] = []
        for case let url as URL in walker {
            if url.lastPathComponent == ".build" {
                walker.skipDescendants()
                continue
            }
            if (try? url.resourceValues(forKeys: Set(keys)))?.isRegularFile == true {
                files.append(url)
            }
        }
        return files.sorted { $0.path < $1.path }
    }
}
