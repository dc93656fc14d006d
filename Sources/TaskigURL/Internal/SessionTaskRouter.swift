import Foundation
import Taskig

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The delegate of a ``DelegateSession``: hands each task's delegate calls to the run that
/// made the task.
///
/// A run registers its ``SessionTaskEvents`` under its task's identifier before it resumes
/// the task, so no call can come before it; the registration goes when the task completes,
/// which URLSession reports for every task, even one cancelled before it was resumed.
/// URLSession calls the delegate on the session's serial queue and runs register from any
/// thread, so the table is behind a lock; the runs are called outside it.
final class SessionTaskRouter: NSObject, URLSessionDataDelegate, Sendable {
    private let runs = LockedState<[Int: any SessionTaskEvents]>([:])

    /// Sends the delegate calls for `task` to `events` until the task completes.
    func register(_ events: any SessionTaskEvents, for task: URLSessionTask) {
        runs.withLock { $0[task.taskIdentifier] = events }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let events = events(of: dataTask) else {
            completionHandler(.cancel)
            return
        }
        events.dataTask(dataTask, didReceive: response, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        events(of: dataTask)?.dataTask(dataTask, didReceive: data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let events = runs.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        events?.task(task, didCompleteWithError: error)
    }

    private func events(of task: URLSessionTask) -> (any SessionTaskEvents)? {
        runs.withLock { $0[task.taskIdentifier] }
    }
}
