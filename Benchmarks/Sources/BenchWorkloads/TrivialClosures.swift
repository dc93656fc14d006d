/// The trivial closures rows 2 and 6 run, and `concurrentPerform` runs as their baseline:
/// `{ i &* 2 }` for each `i` below `count`.
public func trivialClosures(_ count: Int) -> [@Sendable () -> Int] {
    (0..<count).map { i in { i &* 2 } }
}
