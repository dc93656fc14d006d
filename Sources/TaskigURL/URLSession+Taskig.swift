import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Taskig tasks that run on this session: data, downloads, status validation, and
    /// cancellation that reaches the network.
    ///
    /// Each call gives a new value, and every value of one session shares that session's
    /// delegate session, where data tasks with a progress and downloads run (see
    /// ``TaskigSession``).
    ///
    /// ```swift
    /// let task = URLSession.shared.taskig.data(from: url)
    /// let (data, response) = try task.await(timeout: 5)
    /// ```
    public var taskig: TaskigSession { TaskigSession(session: self) }
}
