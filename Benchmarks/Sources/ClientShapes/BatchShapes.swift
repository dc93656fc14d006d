// Issue 21's shapes, written as a client writes them (Swift 5 language mode, public API
// only): batches of `ThrowableTask { … }` closure literals made inside what is timed and
// awaited with `awaitAll()` at the default `concurrency`, each beside the same work under
// `DispatchQueue.concurrentPerform`. Each returns seconds per item, or for a whole batch.
import Dispatch
import Foundation
import Taskig

// MARK: - Making tasks, and awaitAll's own cost (row 10a)

/// Seconds per task: `(0..<count).map { i in ThrowableTask { i &* 2 } }`, then dropped. What
/// making the tasks costs, to take from ``madeThrowableTasksAwaitAll(_:)``.
public func madeThrowableTasksDropped(_ count: Int) -> Double {
    let start = DispatchTime.now()
    do {
        let tasks = (0..<count).map { i in ThrowableTask { i &* 2 } }
        precondition(tasks.count == count)
    }
    return secondsPerItem(since: start, count)
}

/// Seconds per task: the same tasks made, awaited with `try tasks.awaitAll()`, and dropped.
public func madeThrowableTasksAwaitAll(_ count: Int) -> Double {
    let start = DispatchTime.now()
    do {
        let tasks = (0..<count).map { i in ThrowableTask { i &* 2 } }
        let values = try! tasks.awaitAll()
        precondition(values.count == count && values.last == (count - 1) &* 2)
    }
    return secondsPerItem(since: start, count)
}

/// `count` tasks `ThrowableTask { i &* 2 }`, made before a measurement of the memory that
/// awaiting them adds (row 6).
public func trivialThrowableTasks(_ count: Int) -> [ThrowableTask<Int>] {
    (0..<count).map { i in ThrowableTask { i &* 2 } }
}

// MARK: - CPU-bound batches (row 15)

/// Pure computation: `iterations` steps of a xorshift generator from `seed`, each depending
/// on the one before, so that nothing can be skipped or vectorized; about a nanosecond a step.
public func compute(seed: Int, iterations: Int) -> UInt64 {
    var x = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
    for _ in 0..<iterations {
        x ^= x << 13
        x ^= x >> 7
        x ^= x << 17
    }
    return x
}

/// Computation that allocates and reads: a buffer of `bytes` made, filled from a generator
/// seeded with `seed`, read back into a hash, and freed.
public func fillAndHash(seed: Int, bytes: Int) -> UInt64 {
    let words = bytes / MemoryLayout<UInt64>.stride
    let buffer = [UInt64](unsafeUninitializedCapacity: words) { buffer, initialized in
        var x = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        for i in 0..<words {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            buffer[i] = x
        }
        initialized = words
    }
    return buffer.withUnsafeBytes { hash($0) }
}

/// The CPU-bound work a row-15 batch runs, item `i` of it.
public enum BatchWork: Sendable {
    /// ``compute(seed:iterations:)`` of `iterations` steps.
    case compute(iterations: Int)
    /// ``fillAndHash(seed:bytes:)`` of a buffer of `bytes`.
    case fillAndHash(bytes: Int)

    /// The work of item `i`.
    @inline(__always)
    public func callAsFunction(_ i: Int) -> UInt64 {
        switch self {
        case .compute(let iterations): return ClientShapes.compute(seed: i, iterations: iterations)
        case .fillAndHash(let bytes): return ClientShapes.fillAndHash(seed: i, bytes: bytes)
        }
    }
}

/// Seconds for the whole batch: `(0..<count).map { i in ThrowableTask { work(i) } }`,
/// awaited with `try tasks.awaitAll()` (the default `concurrency`); `check` gets the values.
public func workTasksAwaitAll(_ count: Int, _ work: BatchWork, check: ([UInt64]) -> Void) -> Double {
    let start = DispatchTime.now()
    do {
        let tasks = (0..<count).map { i in ThrowableTask { work(i) } }
        let values = try! tasks.awaitAll()
        check(values)
    }
    return secondsPerItem(since: start, 1)
}

/// Seconds for the whole batch: `concurrentPerform` doing the same work, each value written
/// into an array made inside the timing.
public func workConcurrentPerform(_ count: Int, _ work: BatchWork, check: ([UInt64]) -> Void) -> Double {
    let start = DispatchTime.now()
    let values = [UInt64](unsafeUninitializedCapacity: count) { buffer, initialized in
        let output = buffer
        DispatchQueue.concurrentPerform(iterations: count) { i in output[i] = work(i) }
        initialized = count
    }
    check(values)
    return secondsPerItem(since: start, 1)
}

// MARK: - Hashing files (row 16)

/// A 64-bit FNV-1a hash over the bytes, taken eight at a time.
public func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    let words = bytes.count / 8
    for i in 0..<words {
        h = (h ^ bytes.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* 0x100_0000_01B3
    }
    for i in (words * 8)..<bytes.count {
        h = (h ^ UInt64(bytes[i])) &* 0x100_0000_01B3
    }
    return h
}

/// The hash of the file at `url`, read whole into memory, as a user's first version would.
public func hashFile(_ url: URL) throws -> UInt64 {
    let data = try Data(contentsOf: url)
    return data.withUnsafeBytes { hash($0) }
}

/// Seconds for the whole batch: `urls.map { url in ThrowableTask { try hashFile(url) } }`,
/// awaited with `try tasks.awaitAll()` (the default `concurrency`); `check` gets the hashes.
public func hashFilesAwaitAll(_ urls: [URL], check: ([UInt64]) -> Void) throws -> Double {
    let start = DispatchTime.now()
    do {
        let tasks = urls.map { url in ThrowableTask { try hashFile(url) } }
        let hashes = try tasks.awaitAll()
        check(hashes)
    }
    return secondsPerItem(since: start, 1)
}

/// Seconds for the whole batch: `concurrentPerform` hashing the same files, each hash written
/// into an array made inside the timing.
public func hashFilesConcurrentPerform(_ urls: [URL], check: ([UInt64]) -> Void) -> Double {
    let start = DispatchTime.now()
    let hashes = [UInt64](unsafeUninitializedCapacity: urls.count) { buffer, initialized in
        let output = buffer
        DispatchQueue.concurrentPerform(iterations: urls.count) { i in output[i] = try! hashFile(urls[i]) }
        initialized = urls.count
    }
    check(hashes)
    return secondsPerItem(since: start, 1)
}
