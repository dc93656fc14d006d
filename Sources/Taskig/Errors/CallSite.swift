/// A place in the program's source, as `#fileID` and `#line` give it: where a wait was called,
/// or where a promise was made. Taskig's errors and wait reports name places with it.
///
/// ```swift
/// if case TaskigError.promiseDropped(let madeAt) = error {
///     print("the promise made at \(madeAt) was dropped")   // "MyTool/Fetch.swift:42"
/// }
/// ```
public struct CallSite: Sendable, Hashable, CustomStringConvertible {
    /// The file, as `#fileID` names it: `Module/File.swift`.
    public let fileID: String
    /// The line in that file.
    public let line: UInt

    /// The place `fileID`, `line`.
    public init(fileID: String, line: UInt) {
        self.fileID = fileID
        self.line = line
    }

    /// `Module/File.swift:line`.
    public var description: String { "\(fileID):\(line)" }
}

/// A ``CallSite`` as the blocking waits take it, as default arguments: kept as the compiler's
/// static text, so that a wait that never needs it costs nothing but two arguments.
@usableFromInline
struct StaticCallSite: Sendable {
    @usableFromInline
    let file: StaticString
    @usableFromInline
    let line: UInt

    @inlinable
    init(_ file: StaticString, _ line: UInt) {
        self.file = file
        self.line = line
    }

    /// The public form, which copies the text.
    var callSite: CallSite {
        CallSite(fileID: file.description, line: line)
    }
}
