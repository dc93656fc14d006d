import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A cold, cancellable task that performs one HTTP request on a chosen `URLSession`.
///
/// Make one with ``TaskigSession`` (`session.taskig`), then wait for it like any Taskig task.
/// `Payload` is the body as `Data`, or, for a download, the `URL` of the file it was saved to.
///
/// ```swift
/// let session = URLSession(configuration: .ephemeral)
/// let (data, response) = try session.taskig.data(from: url).await(timeout: 10)
/// ```
///
/// - Each run sends the request again, as a new `URLSessionTask`.
/// - A status is not judged unless you ask for it with ``validatingStatus(_:)``: a 404 is a
///   normal result.
/// - Transport failures are thrown as the `URLError` URLSession gave; a URL that is not
///   `http` or `https` throws ``TaskigURLError/unsupportedURL(_:)`` without sending anything.
/// - Giving up on a run cancels its `URLSessionTask`, which closes the connection: a
///   timeout, a failing `awaitAll`, a lost `awaitFirst` race, `Future.cancel()`, a cancelled
///   Swift task awaiting `value`, or the cancellation of the run this one is nested in. The
///   waiter gets ``/Taskig/CancellableTaskError/taskWasCancelled`` at once. ``cancel()``
///   cancels the task for good, in every copy: the runs in flight, and every later run.
/// - The outcome is handed on from a serial queue made for it, not from the session's
///   delegate queue: URLSession delivers every completion of a session on one serial queue,
///   so a callback that blocked there waiting for another request of the same session would
///   never be answered. Not from `DispatchQueue.global()` either: on Linux that pool grows by
///   one thread a second once its threads block, while a serial queue gets a thread at once.
/// - On Linux, URLSession itself needs Dispatch's global threads to make progress. Waiting
///   for requests from many blocks on `DispatchQueue.global()` parks those threads and can
///   stall every request for seconds; wait from your own threads, or hand the requests to
///   `awaitAll`, whose lanes run on Taskig's own threads.
public struct HTTPTask<Payload: Sendable>: ThrowableTaskType, CancellableTaskType, Sendable {
    /// The payload and the HTTP response it came with.
    public typealias ResultType = (Payload, HTTPURLResponse)

    /// The session the request runs on. A data task with a progress and a download run on
    /// its delegate session instead, made with its configuration (see ``TaskigSession``).
    public var session: URLSession { sessions.session }
    /// The request each run sends.
    public let request: URLRequest
    /// The session, and its delegate session.
    let sessions: TaskigSession
    let transfer: HTTPTransfer<Payload>
    let validation: StatusValidation?
    let cancellation: SessionTaskCancellation

    init(
        sessions: TaskigSession,
        request: URLRequest,
        transfer: HTTPTransfer<Payload>,
        validation: StatusValidation? = nil,
        cancellation: SessionTaskCancellation = SessionTaskCancellation()
    ) {
        self.sessions = sessions
        self.request = request
        self.transfer = transfer
        self.validation = validation
        self.cancellation = cancellation
    }

    /// Where a run starts: a global queue. Starting only hands the request to URLSession,
    /// which does the work on its own threads.
    public var executionQueue: DispatchQueue { .global() }

    /// Sends the request and reports the payload and response, or the error, through
    /// `completion`. A cancelled task reports
    /// ``/Taskig/CancellableTaskError/taskWasCancelled`` without sending anything.
    public func action(completion: @escaping @Sendable (Result<ResultType, Error>) -> Void) {
        guard Self.isHTTP(request.url) else {
            completion(.failure(TaskigURLError.unsupportedURL(request.url)))
            return
        }
        guard let slot = cancellation.reserveSlot() else {
            completion(.failure(CancellableTaskError.taskWasCancelled))
            return
        }
        let cancellation = cancellation
        let runWasCancelled = LockedState(false)
        let sessionTask = transfer.makeSessionTask(sessions, request, validation) { result in
            cancellation.release(slot)
            let cancelled = cancellation.isCancelled || runWasCancelled.withLock { $0 }
            let outcome = Self.reportingCancellation(result, cancelled: cancelled)
            // A queue of its own for each completion: see "handed on" in the type's comment.
            DispatchQueue(label: "Taskig.HTTPTask.completion").async { completion(outcome) }
        }
        guard cancellation.fill(slot, with: sessionTask) else {
            // Cancelled while the URLSessionTask was being made: cancelling it (rather than
            // dropping it) lets URLSession complete and forget it.
            sessionTask.cancel()
            return
        }
        ThrowableTask.onCurrentTaskCancelled {
            runWasCancelled.withLock { $0 = true }
            sessionTask.cancel()
        }
        sessionTask.resume()
    }

    /// Whether the task has been cancelled for good, by ``cancel()`` on it or on a copy. A run
    /// that was given up on (a timeout, a lost race) does not set it.
    public var isCancelled: Bool { cancellation.isCancelled }

    /// Cancels the task and every copy of it: runs in flight cancel their `URLSessionTask`
    /// (closing the connection) and report ``/Taskig/CancellableTaskError/taskWasCancelled``;
    /// later runs send nothing. Cancelling twice is harmless.
    public func cancel() { cancellation.cancel() }

    private static func isHTTP(_ url: URL?) -> Bool {
        guard let scheme = url?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// URLSession reports a cancelled `URLSessionTask` as `URLError.cancelled`; when the task
    /// or its run cancelled it, waiters get Taskig's own cancellation error, as for every other
    /// task. A `URLSessionTask` cancelled from elsewhere (say, `invalidateAndCancel()`) keeps
    /// its `URLError`.
    private static func reportingCancellation(
        _ result: Result<ResultType, Error>,
        cancelled: Bool
    ) -> Result<ResultType, Error> {
        if case .failure(let error as URLError) = result, error.code == .cancelled, cancelled {
            return .failure(CancellableTaskError.taskWasCancelled)
        }
        return result
    }
}
