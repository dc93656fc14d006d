import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One run of a download: the body streams into a hidden file beside the destination, which
/// is renamed over the destination once it is complete and accepted, and deleted otherwise.
///
/// URLSession's own download tasks write to a file in the temporary directory, which
/// Foundation on Linux leaves there when the download fails or is cancelled. So each run
/// sends a data task on its session's ``DelegateSession``, which passes this object the
/// task's delegate calls, and writes the body itself.
///
/// The delegate session calls it on its serial queue; the state is behind a lock so that
/// the object can be shared with that queue safely. The bytes are counted into the run's
/// ``TransferProgress``, when the download was given a progress.
final class StreamedDownload: SessionTaskEvents {
    private struct State {
        var partFile: URL?
        var handle: FileHandle?
        var response: HTTPURLResponse?
        /// A failure of the download's own (a file that cannot be written, a response that is
        /// not HTTP), which wins over the `URLError.cancelled` it causes.
        var failure: Error?
        var progress: TransferProgress?
    }

    private let destination: URL
    private let validation: StatusValidation?
    private let completion: HTTPTransfer<URL>.Completion
    private let state: LockedState<State>

    private init(
        destination: URL,
        validation: StatusValidation?,
        progress: Progress?,
        completion: @escaping HTTPTransfer<URL>.Completion
    ) {
        self.destination = destination
        self.validation = validation
        self.completion = completion
        state = LockedState(State(progress: progress.map(TransferProgress.init)))
    }

    /// A suspended task that downloads `request` to `destination` on `delegateSession`,
    /// counting the body's bytes into `progress`; `completion` gets the destination and the
    /// response, or the error.
    static func makeTask(
        _ delegateSession: DelegateSession,
        _ request: URLRequest,
        to destination: URL,
        validation: StatusValidation?,
        progress: Progress?,
        completion: @escaping HTTPTransfer<URL>.Completion
    ) -> URLSessionTask {
        let download = StreamedDownload(
            destination: destination, validation: validation, progress: progress, completion: completion)
        return delegateSession.dataTask(with: request, events: download)
    }

    func dataTask(
        _ dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        do {
            let response = try HTTPTransfer<URL>.httpResponse(response, error: nil)
            let partFile = DownloadPlacement.partFile(for: destination)
            guard FileManager.default.createFile(atPath: partFile.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: partFile.path])
            }
            let handle = try FileHandle(forWritingTo: partFile)
            state.withLock { state in
                state.response = response
                state.partFile = partFile
                state.handle = handle
                state.progress?.responseArrived(expectedLength: response.expectedContentLength)
            }
            completionHandler(.allow)
        } catch {
            state.withLock { $0.failure = error }
            completionHandler(.cancel)
        }
    }

    func dataTask(_ dataTask: URLSessionDataTask, didReceive data: Data) {
        let handle = state.withLock { $0.handle }
        do {
            try handle?.write(contentsOf: data)
            state.withLock { $0.progress?.bodyArrived(data.count) }
        } catch {
            state.withLock { $0.failure = error }
            dataTask.cancel()
        }
    }

    func task(_ task: URLSessionTask, didCompleteWithError error: Error?) {
        let (partFile, handle, response, failure) = state.withLock { state in
            defer { state.handle = nil }
            return (state.partFile, state.handle, state.response, state.failure)
        }
        try? handle?.close()
        let outcome = Result {
            do {
                if let error = failure ?? error { throw error }
                guard let response, let partFile else {
                    throw TaskigURLError.notHTTPResponse(task.originalRequest?.url)
                }
                try validation?.check(response, body: { (try? Data(contentsOf: partFile)) ?? Data() })
                try DownloadPlacement.move(partFile, to: destination)
                return (destination, response)
            } catch {
                if let partFile { try? FileManager.default.removeItem(at: partFile) }
                throw error
            }
        }
        // Before the completion, so that a waiter finds the progress as the run left it.
        let succeeded = if case .success = outcome { true } else { false }
        state.withLock { $0.progress?.runEnded(succeeded: succeeded) }
        completion(outcome)
    }
}
