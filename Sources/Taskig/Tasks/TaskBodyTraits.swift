/// What a ``TaskBody`` says of itself on every run, in one byte (see ``TaskBody/traits``).
@usableFromInline
struct TaskBodyTraits: OptionSet, Sendable {
    @usableFromInline
    let rawValue: UInt8

    @inlinable
    init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The work is a value-returning closure: a run in place is then a plain call.
    @inlinable
    static var isPlainCall: TaskBodyTraits { TaskBodyTraits(rawValue: 1) }
    /// A run of the body only registers a callback when it starts: it waits for a future,
    /// or is a chain that begins by waiting for one.
    @inlinable
    static var startsByListening: TaskBodyTraits { TaskBodyTraits(rawValue: 2) }
    /// A step of the chain ending here runs on a failure (`recover`, `mapError`,
    /// `continueWith`, `finally`), as a cancellation of its run is.
    @inlinable
    static var hasStepForFailures: TaskBodyTraits { TaskBodyTraits(rawValue: 4) }

    /// What a composed body keeps of the traits of the body it continues: how the chain
    /// starts, and whether a step runs on a failure.
    @inlinable
    static var keptByTheNextStep: TaskBodyTraits { TaskBodyTraits(rawValue: 6) }
}
