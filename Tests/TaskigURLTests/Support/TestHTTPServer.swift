import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1, on a free port, for testing TaskigURL against real
/// sockets instead of mocks.
///
/// Every connection gets its own thread. Most routes answer with `Connection: close`, so
/// each of their requests is one TCP connection: what the server counts as "in flight" is
/// exactly what the client has open. The `/kept` routes keep the connection open for the
/// client's next request, so that tests can count how the client reuses connections.
/// Routes are in ``TestRoutes``.
final class TestHTTPServer: Sendable {
    /// What the routes record, for tests to assert on.
    struct Record {
        /// TCP connections accepted.
        var connections = 0
        /// Connections kept open by a `/kept` route that the client then closed.
        var keptClosedByClient = 0
        /// `/kept-together` requests so far.
        var keptTogether = 0
        /// Requests that reached a route, by path.
        var arrivals: [String: Int] = [:]
        /// `/inflight` requests being served now, and the most there ever were at once.
        var inFlight = 0
        var maxInFlight = 0
        /// `/slow` requests whose client closed the connection before the answer was sent.
        var slowClosedByClient = 0
        /// `/slow` requests that ran to the end and were answered.
        var slowAnswered = 0
    }

    let port: Int
    private let listener: Int32
    private let isStopped = Atomic(false)
    private let gate = Atomic(false)
    // An NSLock rather than a Mutex: up to 8 route threads contend for the record, and a
    // contended Mutex on Linux hands over through a PI futex in the kernel, which the thread
    // sanitizer cannot see, so it reports races that are not there. `record` is only touched
    // under `recordLock`.
    private let recordLock = NSLock()
    private nonisolated(unsafe) var record = Record()
    private let acceptLoopDone = DispatchSemaphore(value: 0)

    init() throws {
        let fd = socket(AF_INET, streamSocketType, 0)
        guard fd >= 0 else { throw ServerError.system("socket", errno) }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw ServerError.system("bind/listen", code)
        }
        listener = fd
        port = Self.boundPort(of: fd)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Stops accepting connections and waits for the accept loop to end. Connections being
    /// served finish on their own (slow routes check ``stopped``). The accept loop keeps the
    /// server alive until then, so every test that makes a server stops it.
    func stop() {
        guard !isStopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        acceptLoopDone.wait()
        close(listener)
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// A snapshot of what the routes recorded.
    var snapshot: Record { recordLock.withLock { record } }

    /// Polls the record until `condition` holds or `timeout` seconds (times ``timingSlack``)
    /// pass; returns whether it held.
    func waitUntil(timeout: TimeInterval, _ condition: (Record) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout * timingSlack)
        while Date() < deadline {
            if condition(snapshot) { return true }
            usleep(5_000)
        }
        return condition(snapshot)
    }

    /// A port on 127.0.0.1 where nothing listens: bound once to get a free number, then closed.
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, streamSocketType, 0)
        guard fd >= 0 else { throw ServerError.system("socket", errno) }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw ServerError.system("bind", errno) }
        return boundPort(of: fd)
    }

    /// Lets `/gated` requests send the second half of their bodies, now and from now on.
    func openGate() {
        gate.store(true, ordering: .releasing)
    }

    /// Waits up to 3 s until `answered` `/slow` requests were answered and the client closed
    /// the connection of every other one that arrived; returns whether that came to hold.
    ///
    /// For waits that give up after a time: on a loaded machine a wait can give up before its
    /// run got a thread, and a run given up on before it started never starts, so its request
    /// never arrives and there is nothing to close.
    func clientClosedEverySlowRequestItDidNotWaitFor(answered: Int = 0) -> Bool {
        waitUntil(timeout: 3) { record in
            record.slowAnswered == answered
                && record.slowClosedByClient == record.arrivals["/slow", default: 0] - answered
        }
    }

    // MARK: - Recording, for the routes

    var isGateOpen: Bool { gate.load(ordering: .acquiring) }

    func updateRecord<T>(_ change: (inout Record) -> T) -> T {
        recordLock.withLock { change(&record) }
    }

    var stopped: Bool { isStopped.load(ordering: .acquiring) }

    // MARK: - Sockets

    private func acceptLoop() {
        defer { acceptLoopDone.signal() }
        while !stopped {
            // Polling with a short timeout lets `stop()` end the loop without relying on
            // `close` waking a blocked `accept`, which Linux does not promise.
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            Self.preventSigpipe(connection)
            updateRecord { $0.connections += 1 }
            let thread = Thread { [self] in
                defer { close(connection) }
                serve(TestConnection(fd: connection))
            }
            thread.start()
        }
    }

    /// Serves the requests of one connection: one, or more while routes keep it open.
    private func serve(_ connection: TestConnection) {
        var kept = false
        while let request = TestHTTPRequest.read(from: connection.fd) {
            updateRecord { $0.arrivals[request.path, default: 0] += 1 }
            kept = TestRoutes.serve(request, on: connection, server: self)
            guard kept, connection.waitForRequest(while: { !stopped }) else { return }
        }
        if kept { updateRecord { $0.keptClosedByClient += 1 } }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func boundPort(of fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func preventSigpipe(_ fd: Int32) {
        #if canImport(Darwin)
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        // On Linux `TestConnection.write` passes MSG_NOSIGNAL instead: a client that hangs up
        // mid-answer must not kill the test process with SIGPIPE.
    }

    enum ServerError: Error {
        case system(String, Int32)
    }
}

/// One accepted connection: writing answers and noticing that the client went away.
struct TestConnection {
    let fd: Int32

    /// Writes all of `bytes`; returns `false` when the client is gone.
    @discardableResult
    func write(_ bytes: some Collection<UInt8>) -> Bool {
        var buffer = Array(bytes)
        var offset = 0
        while offset < buffer.count {
            #if canImport(Glibc)
                let flags = Int32(MSG_NOSIGNAL)
            #else
                let flags: Int32 = 0
            #endif
            let sent = buffer.withUnsafeMutableBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, flags)
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        buffer.removeAll()
        return true
    }

    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Waits for the client to send something or close its end, while `condition` holds;
    /// returns whether it did.
    func waitForRequest(while condition: () -> Bool) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while condition() {
            if poll(&entry, 1, 20) > 0 { return true }
        }
        return false
    }

    /// Waits up to `milliseconds` for the client to close its end; returns `true` when it did.
    func waitForClientClose(milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, milliseconds) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) <= 0
    }
}

/// A parsed HTTP/1.1 request: request line, headers and a `Content-Length` body.
struct TestHTTPRequest {
    var method: String
    var path: String
    var query: [String: String]
    /// Header names are lowercased.
    var headers: [String: String]
    var body: Data

    /// Reads one request; `nil` when the client closed first or sent something unreadable.
    static func read(from fd: Int32) -> TestHTTPRequest? {
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            received += chunk[0..<count]
            headerEnd = received.firstRange(of: separator)?.upperBound
            if received.count > 1 << 20 { return nil }
        }
        guard let headerEnd,
            let head = String(bytes: received[0..<headerEnd], encoding: .utf8)
        else { return nil }
        let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard let requestLine = lines.first else { return nil }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var body = received[headerEnd...]
        while body.count < length {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            body += chunk[0..<count]
        }
        let target = URLComponents(string: String(parts[1]))
        var query: [String: String] = [:]
        for item in target?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        return TestHTTPRequest(
            method: String(parts[0]),
            path: target?.path ?? String(parts[1]),
            query: query,
            headers: headers,
            body: Data(body.prefix(length))
        )
    }
}

/// `SOCK_STREAM` as `socket(_:_:_:)` takes it: an enum case on Glibc, a plain number elsewhere.
#if canImport(Glibc)
    private let streamSocketType = Int32(SOCK_STREAM.rawValue)
#else
    private let streamSocketType = SOCK_STREAM
#endif
