import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One run of a data task that counts its bytes into a progress: the body is collected in
/// memory as URLSession delivers it, and each piece is counted when it arrives.
///
/// A completion handler only sees the body once it is whole, so, as a download does (see
/// ``StreamedDownload``), the run sends its request on its session's ``DelegateSession``,
/// which passes this object the task's delegate calls. Data tasks without a progress need
/// none of this and keep using the session they were made for.
///
/// The delegate session calls it on its serial queue; the state is behind a lock so that
/// the object can be shared with that queue safely.
final class StreamedData: SessionTaskEvents {
    private struct State {
        var body = Data()
        var response: HTTPURLResponse?
        /// A response that is not HTTP, which wins over the `URLError.cancelled` it causes.
        var failure: Error?
        var progress: TransferProgress
    }

    private let validation: StatusValidation?
    private let completion: HTTPTransfer<Data>.Completion
    private let state: LockedState<State>

    private init(validation: StatusValidation?, progress: Progress, completion: @escaping HTTPTransfer<Data>.Completion)
    {
        self.validation = validation
        self.completion = completion
        state = LockedState(State(progress: TransferProgress(progress)))
    }

    /// A suspended task that sends `request` on `delegateSession`, counting the body's bytes
    /// into `progress`; `completion` gets the body and the response, or the error.
    static func makeTask(
        _ delegateSession: DelegateSession,
        _ request: URLRequest,
        validation: StatusValidation?,
        progress: Progress,
        completion: @escaping HTTPTransfer<Data>.Completion
    ) -> URLSessionTask {
        let transfer = StreamedData(validation: validation, progress: progress, completion: completion)
        return delegateSession.dataTask(with: request, events: transfer)
    }

    func dataTask(
        _ dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        do {
            let response = try HTTPTransfer<Data>.httpResponse(response, error: nil)
            state.withLock { state in
                state.response = response
                state.body = Data()
                state.progress.responseArrived(expectedLength: response.expectedContentLength)
            }
            completionHandler(.allow)
        } catch {
            state.withLock { $0.failure = error }
            completionHandler(.cancel)
        }
    }

    func dataTask(_ dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { state in
            state.body.append(data)
            state.progress.bodyArrived(data.count)
        }
    }

    func task(_ task: URLSessionTask, didCompleteWithError error: Error?) {
        let outcome = state.withLock { state in
            let outcome = Result {
                if let error = state.failure ?? error { throw error }
                guard let response = state.response else {
                    throw TaskigURLError.notHTTPResponse(task.originalRequest?.url)
                }
                let body = state.body
                try validation?.check(response, body: { body })
                return (body, response)
            }
            let succeeded = if case .success = outcome { true } else { false }
            // Before the completion, so that a waiter finds the progress as the run left it.
            state.progress.runEnded(succeeded: succeeded)
            state.body = Data()
            return outcome
        }
        completion(outcome)
    }
}
