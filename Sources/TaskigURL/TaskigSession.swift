import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Taskig's tasks on one `URLSession`: get it as `session.taskig`.
///
/// Use it to choose the session (its configuration, cookies, cache, timeouts, connections per
/// host) and to download to a file. Its tasks are ``HTTPTask``s, which can also be cancelled
/// for good with ``HTTPTask/cancel()``. A plain `URL` or `URLRequest` runs on
/// `URLSession.shared`; each of its runs is cancelled as an ``HTTPTask``'s is, but it has no
/// `cancel()` of its own.
///
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.httpMaximumConnectionsPerHost = 16
/// let session = URLSession(configuration: configuration)
/// let pages = try urls.map { session.taskig.data(from: $0) }.awaitAll(concurrency: 16)
/// ```
public struct TaskigSession: Sendable {
    /// The session the tasks run on.
    public let session: URLSession

    /// A task that sends `request` and gives the body and the response.
    public func data(for request: URLRequest) -> HTTPTask<Data> {
        HTTPTask(session: session, request: request, transfer: .data)
    }

    /// A task that gets `url` and gives the body and the response.
    public func data(from url: URL) -> HTTPTask<Data> {
        data(for: URLRequest(url: url))
    }

    /// A task that sends `request` and saves the body to the file at `destination`, giving
    /// `destination` and the response.
    ///
    /// The body is streamed to a hidden file beside `destination` and renamed over it only
    /// once it is complete and accepted, replacing a file already there in one atomic step.
    /// A download that fails, is rejected, times out or is cancelled deletes that file: it
    /// leaves `destination` as it was and no file behind, in the temporary directory or
    /// anywhere else. The directory must exist; a destination that cannot be written throws
    /// the file system's error.
    ///
    /// ```swift
    /// let file = FileManager.default.temporaryDirectory.appendingPathComponent("report.pdf")
    /// let (saved, _) = try session.taskig.download(from: reportURL, to: file)
    ///     .validatingStatus(200..<300)
    ///     .await()
    /// ```
    public func download(for request: URLRequest, to destination: URL) -> HTTPTask<URL> {
        HTTPTask(session: session, request: request, transfer: .download(to: destination))
    }

    /// A task that gets `url` and saves the body to the file at `destination`; see
    /// ``download(for:to:)``.
    public func download(from url: URL, to destination: URL) -> HTTPTask<URL> {
        download(for: URLRequest(url: url), to: destination)
    }
}
