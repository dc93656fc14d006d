import Dispatch
import Foundation
import XCTest

@testable import Taskig

/// DESIGN §3's rule as a table: for each kind of caller, each kind of work and each kind of
/// wait, where ``RunPlacement/of(_:wait:)`` sends the work. XCTest runs on the main thread,
/// which is one of the callers; the others are entered from here.
final class RunPlacementTableTests: XCTestCase {
    private let serial = DispatchQueue(label: "taskig.test.placement-table")

    /// The kinds of work: global, the main queue, and a serial queue.
    private var works: [(name: String, queue: WorkQueue)] {
        [
            ("global", WorkQueue(nil, kind: .globalConcurrent)), ("main", WorkQueue(.main)),
            ("serial", WorkQueue(serial)),
        ]
    }

    /// Each row: caller, work, then the placement for a wait until done, a wait with a
    /// deadline, and a caller that does not wait.
    private var rows: [(caller: Caller, work: String, expected: [String])] {
        [
            (.plainThread, "global", ["in place", "worker", "worker"]),
            (.plainThread, "main", ["queue main", "queue main", "queue main"]),
            (.plainThread, "serial", ["queue serial", "queue serial", "queue serial"]),
            (.worker, "global", ["in place", "free worker or in place", "worker"]),
            (.worker, "main", ["queue main", "queue main", "queue main"]),
            (.worker, "serial", ["queue serial", "queue serial", "queue serial"]),
            (.mainThread, "global", ["worker", "worker", "worker"]),
            (.mainThread, "main", ["in place", "in place", "queue main"]),
            (.mainThread, "serial", ["queue serial", "queue serial", "queue serial"]),
            (.holderOfTheSerialQueue, "global", ["in place", "worker", "worker"]),
            (.holderOfTheSerialQueue, "main", ["queue main", "queue main", "queue main"]),
            (.holderOfTheSerialQueue, "serial", ["in place", "in place", "queue serial"]),
            (.holderOfAQueueTargetingTheSerialQueue, "serial", ["in place", "in place", "queue serial"]),
        ]
    }

    enum Caller: CaseIterable {
        case plainThread, worker, mainThread, holderOfTheSerialQueue, holderOfAQueueTargetingTheSerialQueue
    }

    func testEveryKindOfWaitWorkAndCallerGoesWhereTheRuleSays() {
        for row in rows {
            let queue = works.first { $0.name == row.work }!.queue
            let placements = on(row.caller) {
                [RunPlacement.Wait.untilDone, .withDeadline, .no].map { RunPlacement.of(queue, wait: $0) }
            }
            XCTAssertEqual(placements.map(describe), row.expected, "\(row.caller) waiting for \(row.work) work")
        }
    }

    /// Runs `body` as `caller`, from the main thread, and returns what it returned.
    private func on(_ caller: Caller, _ body: @escaping @Sendable () -> [RunPlacement]) -> [RunPlacement] {
        if caller == .mainThread { return body() }
        let result = LockedValue<[RunPlacement]>([])
        let done = DispatchSemaphore(value: 0)
        let serial = serial
        let run: @Sendable () -> Void = {
            switch caller {
            case .holderOfTheSerialQueue:
                serial.sync { result.set(body()) }
            case .holderOfAQueueTargetingTheSerialQueue:
                DispatchQueue(label: "taskig.test.placement-table.targeting", target: serial).sync {
                    result.set(body())
                }
            default:
                result.set(body())
            }
            done.signal()
        }
        if caller == .worker { WorkerPool.shared.submit(run) } else { Thread.detachNewThread(run) }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "\(caller) never ran")
        return result.value
    }

    private func describe(_ placement: RunPlacement) -> String {
        switch placement {
        case .inPlace: return "in place"
        case .onWorker: return "worker"
        case .onFreeWorkerOrInPlace: return "free worker or in place"
        case .onQueue(let queue, _):
            return queue === serial
                ? "queue serial" : queue.label == "com.apple.main-thread" ? "queue main" : "queue \(queue.label)"
        }
    }
}
