import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Taskig tasks that run on this session: data, downloads, status validation, and
    /// cancellation that reaches the network.
    ///
    /// ```swift
    /// let task = URLSession.shared.taskig.data(from: url)
    /// let (data, response) = try task.await(timeout: 5)
    /// ```
    public var taskig: TaskigSession { TaskigSession(session: self) }
}
