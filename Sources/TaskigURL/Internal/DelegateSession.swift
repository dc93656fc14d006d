import Foundation
import Taskig

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one session with a delegate that the runs of a ``TaskigSession`` use when they need
/// URLSession's delegate calls: data tasks with a progress, and downloads.
///
/// A delegate cannot be attached to the caller's session, and a task's own delegate is not
/// called on Linux, so these runs go to a second session, made with the caller's
/// configuration (cookies, cache, credentials, headers, timeouts, connections per host)
/// when the first of them starts. Its delegate, a ``SessionTaskRouter``, routes each task's
/// calls to the run that made it, so every such run of the session shares its connections.
///
/// There is one for each `URLSession` (see ``SessionRegistry``), alive as long as that
/// session and every ``TaskigSession`` of it. URLSession keeps its delegate until it is
/// invalidated; the router holds only the runs in flight, so nothing keeps this object
/// alive but its owners, and its `deinit` invalidates the session it made, letting the tasks
/// in flight finish.
final class DelegateSession: Sendable {
    private enum State {
        case notMade(URLSessionConfiguration)
        case made(URLSession)
    }

    private let router = SessionTaskRouter()
    private let state: LockedState<State>

    /// A delegate session for runs of `session`, made with its configuration on first use.
    init(for session: URLSession) {
        state = LockedState(.notMade(session.configuration))
    }

    deinit {
        if case .made(let session) = state.withLock({ $0 }) {
            session.finishTasksAndInvalidate()
        }
    }

    /// A suspended data task that sends `request` on the delegate session, whose delegate
    /// calls go to `events` until it completes.
    func dataTask(with request: URLRequest, events: any SessionTaskEvents) -> URLSessionTask {
        let task = session.dataTask(with: request)
        router.register(events, for: task)
        return task
    }

    /// The delegate session, made on first use.
    var session: URLSession {
        var made = false
        let session = state.withLock { state in
            switch state {
            case .made(let session):
                return session
            case .notMade(let configuration):
                let session = URLSession(configuration: configuration, delegate: router, delegateQueue: nil)
                state = .made(session)
                made = true
                return session
            }
        }
        if made { ConnectionCache.keepConnections(of: session) }
        return session
    }
}
