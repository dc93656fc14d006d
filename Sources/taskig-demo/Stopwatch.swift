import Dispatch

/// Measures the time since it was made, on the monotonic clock.
struct Stopwatch: Sendable {
    private let start = DispatchTime.now()

    /// Seconds since the stopwatch was made.
    var seconds: Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
