import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a run of an ``HTTPTask`` makes its `URLSessionTask` and turns what URLSession reports
/// into the task's outcome: a body in memory, or a file moved into place.
struct HTTPTransfer<Payload: Sendable>: Sendable {
    typealias Completion = @Sendable (Result<(Payload, HTTPURLResponse), Error>) -> Void

    /// Makes a suspended `URLSessionTask` for the request, on the session itself or on its
    /// delegate session; `completion` runs on that session's delegate queue.
    let makeSessionTask:
        @Sendable (TaskigSession, URLRequest, StatusValidation?, @escaping Completion) -> URLSessionTask

    /// What URLSession reported, as an HTTP response or the error to throw: its own error
    /// as given, or ``TaskigURLError/notHTTPResponse(_:)`` instead of a force cast.
    static func httpResponse(_ response: URLResponse?, error: Error?) throws -> HTTPURLResponse {
        if let error { throw error }
        guard let response = response as? HTTPURLResponse else {
            throw TaskigURLError.notHTTPResponse(response?.url)
        }
        return response
    }
}

extension HTTPTransfer where Payload == Data {
    /// The body, in memory, counted into `progress` when there is one (see ``StreamedData``).
    static func data(progress: Progress?) -> HTTPTransfer {
        HTTPTransfer { sessions, request, validation, completion in
            if let progress {
                return StreamedData.makeTask(
                    sessions.delegateSession, request, validation: validation, progress: progress,
                    completion: completion)
            }
            return sessions.session.dataTask(with: request) { data, response, error in
                completion(
                    Result {
                        let response = try httpResponse(response, error: error)
                        let body = data ?? Data()
                        try validation?.check(response, body: { body })
                        return (body, response)
                    })
            }
        }
    }
}

extension HTTPTransfer where Payload == URL {
    /// The body, in a file at `destination`, counted into `progress` when there is one (see
    /// ``StreamedDownload``).
    static func download(to destination: URL, progress: Progress?) -> HTTPTransfer {
        HTTPTransfer { sessions, request, validation, completion in
            StreamedDownload.makeTask(
                sessions.delegateSession, request, to: destination, validation: validation, progress: progress,
                completion: completion)
        }
    }
}
