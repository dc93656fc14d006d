import Foundation
import TaskigURL
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every way of giving up on a run of a request closes its connection, whether the request is
/// a plain `URL`, a `URLRequest` or an `HTTPTask` (with a progress, which runs on the shared
/// session's delegate session beside the other tests' requests): the loopback server sees the
/// client hang up long before it would have answered.
@Suite("Giving up on a request closes its connection")
struct GivingUpTests {
    enum Kind: String, CaseIterable {
        case url = "URL"
        case urlRequest = "URLRequest"
        case httpTask = "HTTPTask"
        case httpTaskWithProgress = "HTTPTask with a progress"
    }

    enum Way: String, CaseIterable {
        case awaitTimeout = "await(timeout:)"
        case timeoutOperator = "timeout(_:)"
        case failFast = "a failing awaitAll"
        case lostRace = "a race already won"
        case futureCancel = "Future.cancel()"
        case swiftTaskCancel = "a cancelled Swift task awaiting value"
        case outerRunCancelled = "the cancellation of the run it is nested in"
        case taskCancel = "cancel() on the task itself"
    }

    @Test(arguments: Kind.allCases, Way.allCases)
    func givingUpClosesTheConnection(kind: Kind, way: Way) throws {
        // A plain URL or URLRequest is a value: it has no cancel() of its own.
        if way == .taskCancel && (kind == .url || kind == .urlRequest) { return }
        try withServer { server in
            switch kind {
            case .url: try giveUp(on: { server.url($0) }, way, server)
            case .urlRequest: try giveUp(on: { URLRequest(url: server.url($0)) }, way, server)
            case .httpTask: try giveUp(on: { URLSession.shared.taskig.data(from: server.url($0)) }, way, server)
            case .httpTaskWithProgress:
                try giveUp(
                    on: { URLSession.shared.taskig.data(from: server.url($0), progress: Progress(totalUnitCount: 0)) },
                    way, server)
            }
        }
    }

    /// Gives up, in `way`, on a request to `/slow?ms=5000` made by `request`, and checks that
    /// the waiter is released at once and the server sees the connection close.
    private func giveUp<Request: ThrowableTaskType & Sendable>(
        on request: @escaping @Sendable (String) -> Request,
        _ way: Way,
        _ server: TestHTTPServer
    ) throws where Request.ResultType == (Data, HTTPURLResponse) {
        let slow = request("/slow?ms=5000")
        let arrived: @Sendable () -> Bool = { server.waitUntil(timeout: 3) { $0.arrivals["/slow", default: 0] >= 1 } }
        let started = Date()
        let result: Result<(Data, HTTPURLResponse), Error>? = try withWatchdog {
            switch way {
            case .awaitTimeout:
                return Result { try slow.await(timeout: 0.3) }
            case .timeoutOperator:
                return slow.timeout(0.3).awaitResult()
            case .failFast:
                return Result { try [slow, request("/fail-after?ms=300")].awaitAll(concurrency: 2)[0] }
            case .lostRace:
                return Result { try [slow, request("/slow?ms=200")].awaitFirst() }
            case .futureCancel:
                let future = slow.start()
                _ = arrived()
                future.cancel()
                return future.awaitResult()
            case .swiftTaskCancel:
                let swiftTask = _Concurrency.Task(executorPreference: QueueTaskExecutor.shared) { try await slow.value }
                let outcome = Latch<Result<(Data, HTTPURLResponse), Error>>()
                _Concurrency.Task(executorPreference: QueueTaskExecutor.shared) { outcome.fill(await swiftTask.result) }
                _ = arrived()
                swiftTask.cancel()
                return outcome.value(within: 3)
            case .outerRunCancelled:
                let future = ThrowableTask { try slow.await() }.start()
                _ = arrived()
                future.cancel()
                return future.awaitResult()
            case .taskCancel:
                let waiter = Background { slow.awaitResult() }
                _ = arrived()
                (slow as? CancellableTaskType)?.cancel()
                return waiter.value(within: 3)
            }
        }
        // Beside two busy loops (load 13–25), every way: 0.006–0.42 s debug, 0.01–0.73 s
        // ThreadSanitizer; the request would take 5 s.
        #expect(secondsSince(started) < 3, "\(way) released its waiter promptly")
        switch way {
        case .lostRace:
            #expect(throws: Never.self) { try result?.get() }
        default:
            #expect(throws: (any Error).self) { try result?.get() }
        }
        // A way that gives up without waiting for the request to arrive can, on a loaded
        // machine, give up before it does: then there is no connection to close, and no
        // request may arrive later either.
        let closed = server.waitUntil(timeout: 3) { $0.slowClosedByClient >= 1 }
        let arrivals = server.updateRecord { $0.arrivals["/slow", default: 0] }
        #expect(closed || arrivals == 0, "\(way): the server saw \(arrivals) requests and no close")
    }
}
