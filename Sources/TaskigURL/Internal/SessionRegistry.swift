import Foundation
import Taskig

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The ``DelegateSession`` of each `URLSession` that TaskigURL has made tasks for, so that
/// every `session.taskig`, a new ``TaskigSession`` value each time, finds the same one.
///
/// An entry holds its `URLSession` weakly and its delegate session strongly: runs made from
/// `URLSession.shared.taskig` one after the other share one delegate session, which lives as
/// long as the shared session does. Once a session is released (no ``TaskigSession`` or
/// ``HTTPTask`` of it is left either, since they hold it), its entry is dropped the next
/// time a session gets its first entry, and with it the delegate session, which is
/// invalidated.
///
/// The first time it sees a session it also sizes that session's connection cache (see
/// ``ConnectionCache``), since plain data runs use the session itself.
enum SessionRegistry {
    private struct Entry {
        weak var session: URLSession?
        let delegateSession: DelegateSession
    }

    private static let entries = LockedState<[ObjectIdentifier: Entry]>([:])

    /// The delegate session of `session`, made the first time.
    static func delegateSession(of session: URLSession) -> DelegateSession {
        let key = ObjectIdentifier(session)
        var released: [Entry] = []
        let (delegateSession, isNew) = entries.withLock { entries in
            // A released session's identifier may be reused by a new session: the entry is
            // only this session's while it still points at it.
            if let entry = entries[key], entry.session === session { return (entry.delegateSession, false) }
            released = entries.values.filter { $0.session == nil }
            entries = entries.filter { $0.value.session != nil }
            let entry = Entry(session: session, delegateSession: DelegateSession(for: session))
            entries[key] = entry
            return (entry.delegateSession, true)
        }
        // Released outside the lock: a delegate session invalidates itself as it goes.
        released.removeAll()
        if isNew { ConnectionCache.keepConnections(of: session) }
        return delegateSession
    }
}
