import Foundation

/// Whether the calling thread is the process's main thread.
///
/// Foundation's `Thread.isMainThread` costs about a quarter of a microsecond on Linux, more
/// than a whole task run in place, so each thread asks it once and keeps the answer: a
/// thread never stops or starts being the main thread.
@usableFromInline
enum MainThread {
    /// Per thread: nothing yet, or the answer as the address 1 (yes) or 2 (no).
    private static let answers = ThreadLocalSlot()

    @usableFromInline
    static var isCurrent: Bool {
        if let answer = answers.pointer { return Int(bitPattern: answer) == 1 }
        let isMain = Thread.isMainThread
        answers.pointer = UnsafeMutableRawPointer(bitPattern: isMain ? 1 : 2)
        return isMain
    }
}
