import Dispatch
import Foundation
import XCTest

@testable import Taskig

/// The rule of "Waiting safely" (in the documentation) as a table: for each kind of caller,
/// each kind of work and each kind of wait, where ``RunPlacement/of(_:wait:)`` sends the work.
/// XCTest runs on the main thread, which is one of the callers; the others are entered from
/// here.
final class RunPlacementTableTests: XCTestCase {
    private let serial = DispatchQueue(label: "taskig.test.placement-table")

    /// The kinds of work: global, the main queue, and a serial queue.
    private var works: [(name: String, queue: WorkQueue)] {
        [
            ("global", WorkQueue(nil, kind: .defaultGlobal)), ("main", WorkQueue(.main)),
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
            XCTAssertEqual(placements.map { describe($0) }, row.expected, "\(row.caller) waiting for \(row.work) work")
        }
    }

    /// A run that only listens to a future has no work to place: it starts in place, whoever
    /// waits and however.
    func testARunThatOnlyListensStartsInPlace() {
        for caller in Caller.allCases {
            let placements = on(caller) {
                [RunPlacement.Wait.untilDone, .withDeadline, .no].map { RunPlacement.of(nil, wait: $0) }
            }
            XCTAssertEqual(placements.map { describe($0) }, ["in place", "in place", "in place"], "\(caller)")
        }
    }

    /// A collection's lanes, by the same rule: for each caller and lanes' queue, where
    /// ``RunPlacement/ofLanes(on:mayEndEarly:isRace:someTaskIsBound:)`` starts them and whether the
    /// caller runs one itself ("+ caller").
    func testACollectionsLanesGoWhereTheRuleSays() {
        // Each row: caller, lanes' queue, then the placement for global tasks of a batch that
        // nothing can end early, of one that can end early, of one that can end early with a
        // task bound for the serial queue, and of a race.
        let rows: [(caller: Caller, lanes: String, expected: [String])] = [
            (.plainThread, "global", ["worker + caller", "worker", "worker", "worker"]),
            (.plainThread, "main", ["queue main", "queue main", "queue main", "queue main"]),
            (.plainThread, "serial", ["queue serial", "queue serial", "queue serial", "queue serial"]),
            (
                .worker, "global",
                [
                    "free worker or in place + caller", "free worker or in place + caller",
                    "free worker or in place + caller", "worker + caller",
                ]
            ),
            (.worker, "serial", ["queue serial", "queue serial", "queue serial", "queue serial"]),
            (.mainThread, "global", ["worker", "worker", "worker", "worker"]),
            (
                .mainThread, "main",
                ["in place + caller", "in place + caller", "in place + caller", "in place + caller"]
            ),
            (.mainThread, "serial", ["queue serial", "queue serial", "queue serial", "queue serial"]),
            (.holderOfTheSerialQueue, "global", ["worker + caller", "worker", "in place + caller", "worker"]),
            (
                .holderOfTheSerialQueue, "serial",
                ["in place + caller", "in place + caller", "in place + caller", "in place + caller"]
            ),
            (
                .holderOfAQueueTargetingTheSerialQueue, "global",
                ["worker + caller", "worker", "in place + caller", "worker"]
            ),
        ]
        let global = WorkQueue(nil, kind: .defaultGlobal)
        let serialWork = WorkQueue(serial)
        for row in rows {
            let lanes = works.first { $0.name == row.lanes }!.queue
            let cases: [(mayEndEarly: Bool, isRace: Bool, taskQueues: [WorkQueue])] = [
                (false, false, [global]), (true, false, [global]), (true, false, [global, serialWork]),
                (true, true, [global]),
            ]
            let placements = on(row.caller) {
                cases.map { batch in
                    RunPlacement.ofLanes(on: lanes, mayEndEarly: batch.mayEndEarly, isRace: batch.isRace) { isBound in
                        batch.taskQueues.contains(where: isBound)
                    }
                }
            }
            XCTAssertEqual(
                placements.map { describe($0.lanes) + ($0.callerRunsLane ? " + caller" : "") }, row.expected,
                "\(row.caller), lanes on \(row.lanes)")
        }
    }

    /// The quality of service of global work handed to a worker: the queue's when nobody waits,
    /// raised to the waiter's when a thread waits (the main thread's is user-interactive, a
    /// worker's that of the job it runs); work run in place has none of its own.
    func testHandedOffGlobalWorkRunsAtItsQueuesQoSRaisedToTheWaiters() {
        // Each row: caller, the quality of service of the job a worker caller runs, the queue's,
        // then the placement for a wait until done, a wait with a deadline, and no wait.
        let rows: [(caller: Caller, job: WorkQoS, queue: WorkQoS, expected: [String])] = [
            (
                .mainThread, .default, .background,
                ["worker userInteractive", "worker userInteractive", "worker background"]
            ),
            (.mainThread, .default, .utility, ["worker userInteractive", "worker userInteractive", "worker utility"]),
            (
                .mainThread, .default, .userInteractive,
                ["worker userInteractive", "worker userInteractive", "worker userInteractive"]
            ),
            (.worker, .utility, .background, ["in place", "free worker or in place utility", "worker background"]),
            (
                .worker, .utility, .userInitiated,
                ["in place", "free worker or in place userInitiated", "worker userInitiated"]
            ),
            (
                .worker, .userInteractive, .default,
                ["in place", "free worker or in place userInteractive", "worker default"]
            ),
            (
                .worker, .background, .background,
                ["in place", "free worker or in place background", "worker background"]
            ),
        ]
        for row in rows {
            let queue = WorkQueue(nil, kind: .global(row.queue))
            let placements = on(row.caller, jobQoS: row.job) {
                [RunPlacement.Wait.untilDone, .withDeadline, .no].map { RunPlacement.of(queue, wait: $0) }
            }
            XCTAssertEqual(
                placements.map { describe($0, withQoS: true) }, row.expected,
                "\(row.caller) running \(row.job) work, waiting for \(row.queue) work")
        }
    }

    /// The hand-off's quality of service as a pure function: the higher of the two.
    func testTheQoSOfAHandOffIsTheHigherOfTheQueuesAndTheWaiters() {
        for queue in WorkQoS.allCases {
            for waiter in WorkQoS.allCases {
                XCTAssertEqual(WorkQoS.ofHandOff(queue, waiter: waiter), queue >= waiter ? queue : waiter)
            }
        }
        XCTAssertEqual(WorkQoS.ofHandOff(.background, waiter: .unspecified), .background)
        XCTAssertEqual(WorkQoS.ofHandOff(.background, waiter: .userInteractive), .userInteractive)
        XCTAssertEqual(WorkQoS.ofHandOff(.userInitiated, waiter: .utility), .userInitiated)
    }

    /// Runs `body` as `caller`, from the main thread, and returns what it returned; a worker
    /// caller runs it as a job of `jobQoS`.
    private func on<Placement: Sendable>(
        _ caller: Caller, jobQoS: WorkQoS = .default, _ body: @escaping @Sendable () -> [Placement]
    ) -> [Placement] {
        if caller == .mainThread { return body() }
        let result = LockedValue<[Placement]>([])
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
        if caller == .worker { WorkerPool.shared.submit(run, qos: jobQoS) } else { Thread.detachNewThread(run) }
        XCTAssertEqual(done.wait(timeout: .now() + 10 * timingSlack), .success, "\(caller) never ran")
        return result.value
    }

    private func describe(_ placement: RunPlacement, withQoS: Bool = false) -> String {
        switch placement {
        case .inPlace: return "in place"
        case .onWorker(let qos): return withQoS ? "worker \(qos)" : "worker"
        case .onFreeWorkerOrInPlace(let qos):
            return withQoS ? "free worker or in place \(qos)" : "free worker or in place"
        case .onQueue(let queue, _):
            return queue === serial
                ? "queue serial" : queue.label == "com.apple.main-thread" ? "queue main" : "queue \(queue.label)"
        }
    }
}
