/// One step of a composed task (`map`, `flatMap`, `recover`, …): what it does with the
/// outcome of the body it continues.
///
/// A step is a small value kept in its composed ``TaskBody``. It refers to the body it
/// continues without retaining it (the composed body does, see ``TaskBody``), and it moves
/// outcomes through memory that ``ChainRun`` provides: each step knows the types on both of
/// its sides, so a chain of any types runs without a cast at any link.
@usableFromInline
protocol AnyChainStep: Sendable {
    /// The body this step continues.
    var upstream: any AnyTaskBody { get }
    /// Starts the body this step continues, which is not itself a step, as a child run of
    /// the chain's run; its outcome goes to `output`. Returns `true` when the outcome is
    /// already there, `false` when the chain resumes once it is (see ``ChainRun/resume(at:)``).
    func startUpstream(in chain: ChainRun, position: Int, output: UnsafeMutableRawPointer) -> Bool
    /// Takes the outcome at `inputSlot` (leaving that memory uninitialized) and puts this
    /// step's outcome at `outputSlot`. Returns `false` when the step started a task whose
    /// outcome will arrive there later.
    func apply(
        _ inputSlot: UnsafeMutableRawPointer, to outputSlot: UnsafeMutableRawPointer, in chain: ChainRun, position: Int
    ) -> Bool
    /// The size and alignment of this step's outcome.
    var outcomeLayout: OutcomeLayout { get }
    /// The size and alignment of the outcome of the body this step continues.
    var upstreamOutcomeLayout: OutcomeLayout { get }
}

/// A step whose outcome is a `Result<Value, Error>`.
@usableFromInline
protocol ChainStep<Value>: AnyChainStep {
    associatedtype Value
}

/// The memory an outcome needs.
@usableFromInline
struct OutcomeLayout: Sendable {
    @usableFromInline
    let size: Int
    @usableFromInline
    let alignment: Int

    @inlinable
    init<Value>(of _: Value.Type) {
        size = MemoryLayout<Result<Value, Error>>.size
        alignment = MemoryLayout<Result<Value, Error>>.alignment
    }
}

extension ChainStep {
    @inlinable
    var outcomeLayout: OutcomeLayout { OutcomeLayout(of: Value.self) }
}

/// The parts every step shares: the body it continues, and its typed outcome slots.
@usableFromInline
protocol TypedChainStep<Input, Value>: ChainStep {
    associatedtype Input
    /// The body this step continues. Kept unowned: the composed body retains it.
    var previous: TaskBody<Input> { get }
}

extension TypedChainStep {
    @inlinable
    var upstream: any AnyTaskBody { previous }

    @inlinable
    var upstreamOutcomeLayout: OutcomeLayout { OutcomeLayout(of: Input.self) }

    @inlinable
    func startUpstream(in chain: ChainRun, position: Int, output: UnsafeMutableRawPointer) -> Bool {
        chain.startChild(ThrowableTask(body: previous), position: position, output: output)
    }

    /// Takes the outcome this step continues from its slot.
    @inlinable
    func takeInput(_ inputSlot: UnsafeMutableRawPointer) -> Result<Input, Error> {
        inputSlot.assumingMemoryBound(to: Result<Input, Error>.self).move()
    }

    /// Puts this step's outcome in its slot; the step finished at once.
    @inlinable
    func put(_ outcome: Result<Value, Error>, in outputSlot: UnsafeMutableRawPointer) -> Bool {
        outputSlot.assumingMemoryBound(to: Result<Value, Error>.self).initialize(to: outcome)
        return true
    }
}
