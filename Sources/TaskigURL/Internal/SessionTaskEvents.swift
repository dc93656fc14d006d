import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one run hears of its `URLSessionTask` on the delegate session (see
/// ``DelegateSession``): the calls URLSession makes to a session's delegate, for this task
/// alone. ``SessionTaskRouter`` makes them, on the delegate session's serial queue, one at a
/// time.
protocol SessionTaskEvents: AnyObject, Sendable {
    /// The response arrived; `completionHandler` says whether to go on with the body.
    func dataTask(
        _ dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    )

    /// A piece of the body arrived.
    func dataTask(_ dataTask: URLSessionDataTask, didReceive data: Data)

    /// The task ended, with `error` when it did not succeed. The last call for the task.
    func task(_ task: URLSessionTask, didCompleteWithError error: Error?)
}
