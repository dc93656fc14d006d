/// A value that a benchmark's set-up writes and its body reads, or that one thread writes
/// and another reads after a semaphore hand-off; the hand-off orders the accesses.
public final class Box<Value>: @unchecked Sendable {
    /// The value.
    public var value: Value

    /// A box holding `value`.
    public init(_ value: Value) { self.value = value }
}
