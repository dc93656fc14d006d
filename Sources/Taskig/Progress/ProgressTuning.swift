/// The tuning constants of a collection wait's `Progress`, each with the benchmark row or test
/// that justifies it (Benchmarks/README.md lists the rows).
@usableFromInline
enum ProgressTuning {
    /// How long after a wait with a `Progress` starts it first looks whether the progress was
    /// cancelled, which Foundation on Linux may report seconds late while Dispatch's global
    /// threads are held. LoadShapeTests' `progress-cancel-global-threads-held`.
    @usableFromInline
    static var firstProgressCancellationLook: Double { 0.01 }

    /// The longest time between two looks at a progress's cancellation, and so about the
    /// longest a cancel can take (the same test).
    @usableFromInline
    static var longestTimeBetweenProgressCancellationLooks: Double { 0.1 }

    /// How often, at most, a running wait sets its progress's completed count. Row 12b (a
    /// progress costs at most 10% more per task).
    @usableFromInline
    static var progressPublishingInterval: Double { 0.01 }
}
