import Foundation

/// The number of processors this process may use, read when first needed.
@usableFromInline
enum ActiveProcessors {
    @usableFromInline
    static let count = ProcessInfo.processInfo.activeProcessorCount
}
