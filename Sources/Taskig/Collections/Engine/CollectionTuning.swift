/// The tuning constants of the collection waits and of their progress, each with the benchmark
/// row or test that justifies it (Benchmarks/README.md lists the rows). The threads' own (how
/// long a waiter or a worker spins, how long an idle worker lives) are with ``BriefSpin`` and
/// ``WorkerPool``.
@usableFromInline
enum CollectionTuning {
    /// How long after the start a batch first looks at its lanes for ones that wait:
    /// lanes of tasks that block (a `sleep`, a synchronous read) reach full concurrency within a
    /// few milliseconds. Row 4 (400 × 20 ms sleeps at concurrency 50 in 8 waves) and
    /// LoadShapeTests' `blocking-late`.
    @usableFromInline
    static var firstLaneLook: Double { 0.001 }

    /// The longest time between two looks at the lanes; looks that start no lane come twice as
    /// far apart each time, so that tasks that compute wake Taskig's timer queue rarely. Row 2 (100k
    /// trivial tasks: no look finds work for another lane) and LoadShapeTests' `stuck-then-quick`.
    @usableFromInline
    static var longestTimeBetweenLaneLooks: Double { 0.064 }

    /// How soon a look comes back to lanes it found asleep in their task's code for the first
    /// time, to see whether they still are: a lane's thread can sleep for an instant anywhere,
    /// and a look that took one instant for a blocked task started a thread for nothing.
    /// BatchLookTests' `lanesAsleepOnTheBatchsOwnLockOpenNoLanes` under ThreadSanitizer, and
    /// row 4 and LoadShapeTests' `blocking-late` for how soon lanes start beside tasks that block.
    @usableFromInline
    static var confirmingLaneLook: Double { 0.000_2 }

    /// A lane whose thread is blocked at a look, and was on a core for less than this share of
    /// the time since the last one, gets another lane beside it: a lane that sleeps or reads
    /// is on a core for almost none of it. A lane that computes and blocks only briefly (a
    /// lock, an allocation's page fault) is on a core for most of it. Rows 4 and 15 (CPU-bound
    /// batches at the default `concurrency`), and LoadShapeTests' `computing-batch`.
    @usableFromInline
    static var blockedLaneCoreShare: Double { 0.25 }

    /// The most tasks a lane claims at once: few enough that a lane never keeps many tasks from
    /// the others, enough that lanes rarely meet on the batch's counter and that the outcomes
    /// they write lie on cache lines of their own. Row 2a.
    @usableFromInline
    static var largestClaim: Int { 16 }

    /// Claims that end sooner than this after the last one double in size; a later one is one
    /// task again, so that tasks that block are claimed one at a time, as a bound on
    /// concurrency needs. Rows 2a and 4, and LoadShapeTests' `stuck-then-quick`.
    @usableFromInline
    static var quickClaimNanoseconds: UInt64 { 20_000 }
}
