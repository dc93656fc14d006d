import Dispatch
import Foundation
import XCTest

@testable import Taskig

/// Global-queue work runs on Taskig's workers at its queue's quality of service, raised to that
/// of a thread that waits for it (see ``WorkQoS``). Linux applies nothing to its threads, so
/// these read the quality of service a worker took up for its job, which Darwin also applies;
/// where the system reports one (Darwin), it must agree. XCTest runs on the main thread, one
/// of the waiters here.
final class WorkQoSTests: MainThreadTestCase {
    /// The quality of service the work sees: the one its worker took up for it, checked against
    /// the system's where the system has one.
    private static func observedQoS() -> WorkQoS? {
        let taken = WorkerThread.qos
        let system = WorkQoS(Platform.currentThreadQoS)
        precondition(
            system == .unspecified || system == taken, "the system runs the worker at \(system), not \(taken as Any)")
        return taken
    }

    /// The quality of service a global queue's label names (`com.apple.root.utility-qos`): on
    /// Linux, `.global(qos: .userInteractive)` is the user-initiated queue, and its work runs as
    /// such.
    private static func qosNamed(byLabelOf queue: DispatchQueue) -> WorkQoS? {
        let names: [(String, WorkQoS)] = [
            ("background", .background), ("utility", .utility), ("default", .default),
            ("user-initiated", .userInitiated), ("user-interactive", .userInteractive),
        ]
        return names.first { queue.label.hasPrefix("com.apple.root.\($0.0)-qos") }?.1
    }

    /// What a worker switches to for a job, as a table: each row is the worker's quality of
    /// service (`nil` before its first job), the job's, and the switch (`nil`: none).
    func testAWorkerSwitchesOnlyWhenAJobWantsAnotherQoS() {
        let rows: [(current: WorkQoS?, job: WorkQoS, expected: WorkQoS?)] = [
            (nil, .default, .default),
            (nil, .background, .background),
            (nil, .unspecified, .default),
            (.default, .default, nil),
            (.default, .unspecified, nil),
            (.default, .background, .background),
            (.background, .userInteractive, .userInteractive),
            (.userInteractive, .utility, .utility),
            (.utility, .utility, nil),
        ]
        for row in rows {
            XCTAssertEqual(WorkQoS.change(from: row.current, to: row.job), row.expected, "\(row)")
        }
    }

    /// A worker takes up each job's quality of service, whatever its previous job's was.
    func testAWorkerRunsEachJobAtItsQoS() {
        for qos in [WorkQoS.background, .userInteractive, .utility, .default, .userInitiated, .background] {
            let seen = LockedValue<WorkQoS?>(nil)
            let done = DispatchSemaphore(value: 0)
            WorkerPool.shared.submit(
                {
                    seen.set(Self.observedQoS())
                    done.signal()
                }, qos: qos)
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(seen.value, qos)
        }
    }

    /// Nobody waits for `async`: the work runs at its queue's quality of service, so a task on
    /// `.background` and one on `.userInteractive` no longer run alike. (On Linux the latter is
    /// the user-initiated queue; see ``qosNamed(byLabelOf:)``.)
    func testUnwaitedWorkRunsAtItsQueuesQoS() {
        for queue in [DispatchQueue.background, .utility, .global(), .userInitiated, .userInteractive] {
            let qos = Self.qosNamed(byLabelOf: queue)
            let seen = LockedValue<WorkQoS?>(nil)
            let done = DispatchSemaphore(value: 0)
            Task(executionQueue: queue) { Self.observedQoS() }.async { value in
                seen.set(value)
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(seen.value, qos, "\(queue.label)")
        }
    }

    /// A wait on the main thread hands its global work to a worker at the main thread's
    /// quality of service, whatever the queue's: a main thread never waits for slower work.
    func testAMainThreadWaitsWorkRunsAtUserInteractive() throws {
        XCTAssertEqual(Task(executionQueue: .background) { Self.observedQoS() }.await(), .userInteractive)
        XCTAssertEqual(
            try ThrowableTask(executionQueue: .utility) { Self.observedQoS() }.await(timeout: 10), .userInteractive)
        let lanes = try [ThrowableTask](
            repeating: ThrowableTask(executionQueue: .background) { Self.observedQoS() }, count: 8
        )
        .awaitAll(.background, concurrency: 4)
        XCTAssertEqual(Set(lanes), [.userInteractive])
    }

    /// A worker's wait with a deadline hands the work on at the higher of the queue's quality of
    /// service and its own job's; when no other worker is free, it runs the work itself, at its
    /// own.
    func testAWorkersTimedWaitHandsWorkOnAtTheHigherQoS() {
        let seen = LockedValue<[(WorkQoS?, ranInPlace: Bool)]>([])
        let done = DispatchSemaphore(value: 0)
        WorkerPool.shared.submit(
            {
                let waiter = ObjectIdentifier(Thread.current)
                for queue in [DispatchQueue.background, .userInitiated] {
                    let outcome = try? ThrowableTask(executionQueue: queue) {
                        (Self.observedQoS(), ObjectIdentifier(Thread.current) == waiter)
                    }.await(timeout: 10)
                    seen.update { $0.append(outcome ?? (nil, false)) }
                }
                done.signal()
            }, qos: .utility)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        let expected: [WorkQoS] = [.utility, .userInitiated]
        XCTAssertEqual(seen.value.count, 2)
        for ((qos, ranInPlace), handedOff) in zip(seen.value, expected) {
            XCTAssertEqual(qos, ranInPlace ? .utility : handedOff)
        }
    }

    /// Every global queue, however it was reached, is recognized as global, with the quality of
    /// service its label names, before anything else is read from it; making and running tasks on it never
    /// tags it, which Darwin's `setSpecific` would refuse with a crash.
    func testGlobalQueuesAreRecognizedWithTheirQoSAndNeverTagged() throws {
        let queues: [DispatchQueue] = [
            .global(), .global(qos: .unspecified), .global(qos: .background), .global(qos: .utility),
            .global(qos: .default), .global(qos: .userInitiated), .global(qos: .userInteractive), .background,
            .utility, .userInitiated, .userInteractive,
        ]
        for queue in queues {
            let qos = try XCTUnwrap(Self.qosNamed(byLabelOf: queue), "not a global queue's label: \(queue.label)")
            XCTAssertEqual(QueueAffinity.kind(of: queue), .global(qos), queue.label)
            XCTAssertEqual(Task(executionQueue: queue) { 1 }.await(), 1)
            XCTAssertEqual(try ThrowableTask(executionQueue: queue) { 2 }.map(on: queue) { $0 + 1 }.await(), 3)
            XCTAssertEqual(try [ThrowableTask(executionQueue: queue) { 4 }].awaitAll(queue), [4])
            XCTAssertFalse(QueueAffinity.isTagged(queue), queue.label)
        }
        XCTAssertEqual(QueueAffinity.kind(of: .main), .main)
        XCTAssertEqual(QueueAffinity.kind(of: DispatchQueue(label: "taskig.test.qos-serial")), .other)
    }
}
