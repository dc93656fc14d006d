import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Taskig's tasks on one `URLSession`: get it as `session.taskig`.
///
/// Use it to choose the session (its configuration, cookies, cache, timeouts, connections per
/// host), to download to a file, and to count a body's bytes into a Foundation `Progress`
/// (see ``data(for:progress:)``). Its tasks are ``HTTPTask``s, which can also be cancelled
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
///
/// Plain data tasks run on `session` itself. Data tasks with a progress and downloads need
/// URLSession's delegate calls, which a session made by someone else cannot give, so they
/// run on a second session, its *delegate session*:
///
/// - It is made once for each `session`, when the first such run starts, with `session`'s
///   configuration (cookies, cache, credentials, headers, timeouts, connections per host),
///   and every such run of `session` shares it, and its open connections, whichever
///   `session.taskig` value made the task. Cancelling a run cancels its own request only.
/// - It is not `session`: its requests and connections are its own, so one host may see up
///   to twice `httpMaximumConnectionsPerHost` connections from the two. `session`'s
///   delegate is not called for them, and `invalidateAndCancel()` on `session` does not
///   reach them; cancel the tasks instead.
/// - It lives as long as `session` does and is invalidated, letting its requests finish,
///   after `session` and every task made from it are released. For `URLSession.shared` it
///   lives as long as the process.
/// - Background configurations (`URLSessionConfiguration.background(withIdentifier:)`) are
///   not supported: their transfers outlive the process and report to a delegate the system
///   relaunches, which a task that is waited for cannot be.
///
/// On Linux, the first `session.taskig` of a session also makes it keep its open connections
/// for reuse while few of its requests are in flight, which libcurl's default does not:
/// URLSession on Linux otherwise closes the oldest idle connection whenever a request ends
/// with more than four connections open for each request in flight. The session then keeps
/// up to four times its `httpMaximumConnectionsPerHost` connections open, and closes idle
/// ones as before when the server closes them or after about two minutes unused. This also
/// applies to the requests the session makes outside Taskig.
public struct TaskigSession: Sendable {
    /// The session the tasks run on.
    public let session: URLSession
    /// Where data tasks with a progress and downloads run: the same for every `TaskigSession`
    /// of `session`.
    let delegateSession: DelegateSession

    init(session: URLSession) {
        self.session = session
        delegateSession = SessionRegistry.delegateSession(of: session)
    }

    /// A task that sends `request` and gives the body and the response, counting the body's
    /// bytes into `progress` when you pass one.
    ///
    /// ```swift
    /// let progress = Progress(totalUnitCount: 0)
    /// let (data, _) = try session.taskig.data(for: request, progress: progress).await()
    /// print(progress.completedUnitCount, "of", progress.totalUnitCount, "bytes")
    /// ```
    ///
    /// Each run of the task adds to `progress`, from URLSession's threads:
    ///
    /// - When the response arrives, its `Content-Length` goes to `totalUnitCount`.
    /// - Each piece of the body goes to `completedUnitCount` as it arrives, counted as
    ///   URLSession delivers it (a body the server compressed is counted decoded). A body that
    ///   turns out longer than its `Content-Length` raises the total with it.
    /// - Without a `Content-Length` (a chunked response), the run keeps what it added to the
    ///   total one above the bytes that arrived: the progress counts the bytes, and does not
    ///   read as finished before the body has ended.
    /// - A run that succeeds leaves exactly the bytes it received in both counts; for a
    ///   download, once the file is in place.
    /// - A run that does not succeed (the transfer fails, ``HTTPTask/validatingStatus(_:)``
    ///   rejects the status, the run is given up or the task cancelled) takes back everything it
    ///   added, so a `retry` counts the body once. A run that was given up takes it back when
    ///   URLSession reports the transfer's end, a moment after its waiter was released.
    ///
    /// A run only adds and takes back, never sets, so the progress may start with counts of
    /// its own, and several tasks may share one progress (from `awaitAll`, say): their totals
    /// add up as their responses arrive. The task does not watch the progress: `cancel()` or
    /// `pause()` on it change nothing; cancel the task (``HTTPTask/cancel()``) or give up on
    /// its run instead.
    ///
    /// Counting needs URLSession's delegate calls, so with a progress the task runs on the
    /// delegate session, as a download does (see ``TaskigSession``): it reuses the connections
    /// of the other data tasks with a progress and downloads of `session`, not those of its
    /// plain data tasks. The progress is updated on the delegate session's serial queue, where
    /// an observer must not wait for another request of `session` with a progress.
    ///
    /// - Parameters:
    ///   - request: The request each run sends.
    ///   - progress: Counts the body's bytes; `nil`, the default, counts nothing.
    public func data(for request: URLRequest, progress: Progress? = nil) -> HTTPTask<Data> {
        HTTPTask(sessions: self, request: request, transfer: .data(progress: progress))
    }

    /// A task that gets `url` and gives the body and the response, counting the body's bytes
    /// into `progress` as ``data(for:progress:)`` describes.
    public func data(from url: URL, progress: Progress? = nil) -> HTTPTask<Data> {
        data(for: URLRequest(url: url), progress: progress)
    }

    /// A task that sends `request` and saves the body to the file at `destination`, giving
    /// `destination` and the response, and counting the body's bytes into `progress` as
    /// ``data(for:progress:)`` describes.
    ///
    /// The download runs on the delegate session (see ``TaskigSession``). The body is streamed
    /// to a hidden file beside `destination` and renamed over it only once it is complete and
    /// accepted, replacing a file already there in one atomic step. A download that fails, is
    /// rejected, times out or is cancelled deletes that file: it leaves `destination` as it
    /// was and no file behind, in the temporary directory or anywhere else. The directory must
    /// exist; a destination that cannot be written throws the file system's error.
    ///
    /// ```swift
    /// let file = FileManager.default.temporaryDirectory.appendingPathComponent("report.pdf")
    /// let progress = Progress(totalUnitCount: 0)
    /// let (saved, _) = try session.taskig.download(from: reportURL, to: file, progress: progress)
    ///     .validatingStatus(200..<300)
    ///     .await()
    /// ```
    public func download(for request: URLRequest, to destination: URL, progress: Progress? = nil) -> HTTPTask<URL> {
        HTTPTask(sessions: self, request: request, transfer: .download(to: destination, progress: progress))
    }

    /// A task that gets `url` and saves the body to the file at `destination`, counting the
    /// body's bytes into `progress`; see ``download(for:to:progress:)``.
    public func download(from url: URL, to destination: URL, progress: Progress? = nil) -> HTTPTask<URL> {
        download(for: URLRequest(url: url), to: destination, progress: progress)
    }
}
