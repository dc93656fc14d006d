import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Keeps a session's open connections for reuse on Linux, where URLSession otherwise closes
/// them whenever few of its requests are in flight.
///
/// URLSession on Linux runs on libcurl's multi interface. Unless told otherwise
/// (`CURLMOPT_MAXCONNECTS`, which swift-corelibs-foundation does not set), libcurl's cache
/// of open connections holds four per transfer in progress *at that moment*: each time a
/// transfer ends with more connections open than that, libcurl closes the oldest idle one.
/// Requests that come in waves, as a collection wait's do whenever the callbacks of a few
/// requests are handed on while the others are already done, make the count of transfers
/// dip, and the next wave opens again the connections the dip closed. Which requests wait
/// for a hand-off and for how long depends on the machine's load, so any client of
/// URLSession sees it (Benchmarks' row 9 and its notes in RESULTS.md).
///
/// ``keepConnections(of:)`` sets `CURLMOPT_MAXCONNECTS` to four times the session's
/// `httpMaximumConnectionsPerHost`: the cache libcurl itself keeps when one host has all its
/// connections busy, kept however few requests remain. Idle connections still close when
/// the server closes them, and libcurl still closes those left unused for about two minutes.
///
/// Foundation has no API for it, so this reaches the session's multi handle by reflection
/// (`multiHandle.rawHandle`) and sets the option on `multiHandle.queue`, the queue on which
/// Foundation makes every call on that handle, through libcurl's `curl_multi_setopt` found
/// with `dlsym`. Where any of that is missing (a Foundation that changed, a libcurl linked
/// statically) it does nothing and the session keeps libcurl's default; the connection test
/// of TaskigURLTests (`ConnectionReuseTests`) fails then. Elsewhere URLSession does not use
/// libcurl, and it does nothing.
enum ConnectionCache {
    /// Makes `session` keep its connections open for reuse (see the type's comment). Called
    /// once per session, before its first request of TaskigURL's.
    static func keepConnections(of session: URLSession) {
        #if os(Linux)
            guard let setOption = curlMultiSetOption,
                let sessionMirror = urlSessionMirror(of: session),
                let multiHandle = storedProperty("multiHandle", in: sessionMirror)
            else { return }
            let multiHandleMirror = Mirror(reflecting: multiHandle)
            guard let rawHandle = storedProperty("rawHandle", in: multiHandleMirror).flatMap(pointer(from:)),
                let queue = storedProperty("queue", in: multiHandleMirror) as? DispatchQueue
            else { return }
            let size = 4 * min(max(session.configuration.httpMaximumConnectionsPerHost, 1), 1 << 16)
            nonisolated(unsafe) let handle = rawHandle
            queue.async {
                // The session owns the handle: it must live until the option is set.
                withExtendedLifetime(session) { _ = setOption(handle, maxConnectsOption, size) }
            }
        #endif
    }

    #if os(Linux)
        /// `curl_multi_setopt(CURLM *, CURLMoption, ...)` with one `long` argument. It is
        /// variadic, and Swift calls it through a plain C function type: on x86-64 and arm64
        /// Linux an integer argument goes to a variadic function exactly as to any other.
        private typealias SetOption = @convention(c) (UnsafeMutableRawPointer, Int32, Int) -> Int32

        /// libcurl's `CURLMOPT_MAXCONNECTS` (`CURLOPTTYPE_LONG + 6`).
        private static let maxConnectsOption: Int32 = 6

        private static let curlMultiSetOption: SetOption? = {
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "curl_multi_setopt") else { return nil }
            return unsafeBitCast(symbol, to: SetOption.self)
        }()

        /// The mirror of `session`'s stored properties that `URLSession` itself declares, past
        /// those of a subclass, which are not read.
        private static func urlSessionMirror(of session: URLSession) -> Mirror? {
            var mirror: Mirror? = Mirror(reflecting: session)
            while let current = mirror, ObjectIdentifier(current.subjectType) != ObjectIdentifier(URLSession.self) {
                mirror = current.superclassMirror
            }
            return mirror
        }

        /// The stored property `name` that `mirror` shows. The properties declared before it
        /// are read too: only constants come before the ones asked for.
        private static func storedProperty(_ name: String, in mirror: Mirror) -> Any? {
            mirror.children.first { $0.label == name }?.value
        }

        /// libcurl's handle, as Foundation imports its C type.
        private static func pointer(from value: Any) -> UnsafeMutableRawPointer? {
            if let pointer = value as? UnsafeMutableRawPointer { return pointer }
            if let pointer = value as? OpaquePointer { return UnsafeMutableRawPointer(pointer) }
            return nil
        }
    #endif
}
