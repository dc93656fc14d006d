import Taskig
import Foundation
import Dispatch
func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
func measure(_ name: String, _ n: Int = 200_000, _ body: () -> Void) {
    let t0 = now(); for _ in 0..<n { body() }; print(name, Int((now() - t0) / Double(n) * 1e9), "ns")
}
Thread.detachNewThread {
    let tasks = (0..<100_000).map { i in Task { i * 2 } }
    for c in [1, 2, 4, 8, 50] {
      let t0 = now(); for _ in 0..<5 { _ = tasks.awaitAll(concurrency: c) }; print("c=\(c)", Int((now() - t0) / 5 / 100_000 * 1e9), "ns/task")
    }
    let closures: [@Sendable () -> Int] = (0..<100_000).map { i in { i * 2 } }
    let t0 = now()
    for _ in 0..<5 {
        let out = [Int](unsafeUninitializedCapacity: 100_000) { buf, n in
            nonisolated(unsafe) let b = buf
            DispatchQueue.concurrentPerform(iterations: 100_000) { i in b[i] = closures[i]() }
            n = 100_000
        }
        _ = out
    }
    print("concurrentPerform", Int((now() - t0) / 5 / 100_000 * 1e9), "ns/task")
    exit(0)
}
Thread.sleep(forTimeInterval: 100)
