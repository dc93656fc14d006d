/// One step of a composed task (`map`, `flatMap`, `recover`, …): what it does with the
/// outcome of the body it continues.
///
/// A step is kept in its composed ``TaskBody``, which refers to the body it continues. Its
/// work is a closure made by the operator, which knows the types on both sides of the step:
/// the operator is inlined into the code that calls it, where those types are concrete, so a
/// chain runs without looking up a generic type or casting at any link. Outcomes move through
/// memory that ``ChainRun`` provides, sized as the chain is built.
@usableFromInline
enum ChainStep {
    /// Takes the outcome in the first slot (leaving that memory uninitialized) and puts the
    /// step's outcome in the second. Returns `false` when the step started a task whose
    /// outcome arrives there later (see ``ChainRun/resume(at:)``).
    @usableFromInline
    typealias Apply =
        @Sendable (
            _ inputSlot: UnsafeMutableRawPointer, _ outputSlot: UnsafeMutableRawPointer, _ chain: ChainRun,
            _ position: Int
        ) -> Bool

    /// Starts a chain's first body, the one its first step continues, and puts its outcome
    /// in `output`. Returns `true` when the outcome is already there, `false` when the chain
    /// will be resumed once it is (see ``ChainRun/resume(at:)``). Made where the first step is
    /// added, so that it runs in code specialized for the first body's type.
    @usableFromInline
    typealias StartSource =
        @Sendable (_ source: AnyObject, _ chain: ChainRun, _ output: UnsafeMutableRawPointer) -> Bool

    /// The ``StartSource`` of a body that does not begin a chain. A function rather than a
    /// stored closure, so that every body made does not check that the closure was made.
    @usableFromInline
    static func noSource(_: AnyObject, _: ChainRun, _: UnsafeMutableRawPointer) -> Bool {
        preconditionFailure("BUG IN TASKIG: started the source of a body that does not begin a chain")
    }

    /// The step of a body that is not composed, never applied; a function, as ``noSource(_:_:_:)``.
    @usableFromInline
    static func none(_: UnsafeMutableRawPointer, _: UnsafeMutableRawPointer, _: ChainRun, _: Int) -> Bool {
        preconditionFailure("BUG IN TASKIG: a step was applied on a task that is not composed")
    }
}

/// The memory an outcome needs.
@usableFromInline
struct OutcomeLayout: Sendable {
    /// Kept in 32 bits each, as every task body of a chain stores one.
    @usableFromInline
    let storedSize: UInt32
    @usableFromInline
    let storedAlignment: UInt32

    @inlinable
    init<Value>(of _: Value.Type) {
        self.init(
            size: MemoryLayout<Result<Value, Error>>.size, alignment: MemoryLayout<Result<Value, Error>>.alignment)
    }

    @inlinable
    init(size: Int, alignment: Int) {
        storedSize = UInt32(size)
        storedAlignment = UInt32(alignment)
    }

    @inlinable
    var size: Int { Int(storedSize) }

    @inlinable
    var alignment: Int { Int(storedAlignment) }

    /// Room for either.
    @inlinable
    func union(_ other: OutcomeLayout) -> OutcomeLayout {
        OutcomeLayout(size: max(size, other.size), alignment: max(alignment, other.alignment))
    }

    /// The distance between two slots for outcomes of this layout.
    @inlinable
    var stride: Int { max(1, (size + alignment - 1) / alignment * alignment) }
}

/// Moving typed outcomes in and out of a chain's slots, for the steps.
@usableFromInline
enum ChainSlot {
    /// Takes the outcome in `slot`, leaving it uninitialized.
    @inlinable
    static func take<Value>(_ slot: UnsafeMutableRawPointer, as _: Value.Type) -> Result<Value, Error> {
        slot.assumingMemoryBound(to: Result<Value, Error>.self).move()
    }

    /// Puts `outcome` in `slot`; the step finished at once.
    @inlinable
    static func put<Value>(_ outcome: Result<Value, Error>, in slot: UnsafeMutableRawPointer) -> Bool {
        slot.assumingMemoryBound(to: Result<Value, Error>.self).initialize(to: outcome)
        return true
    }
}
