import BenchWorkloads
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1, on a port the system picks, for row 9.
///
/// It answers every `GET /…?id=N` with `200 OK` and the body `N`. Connections are kept alive
/// (HTTP/1.1's default): a thread per connection serves requests from it until the client
/// closes it or sends `Connection: close`. With `keepAlive: false` (for the diagnostics) it
/// answers every request with `Connection: close` and closes the connection. It counts connections and requests, so the row can
/// say how often the client reused a connection. Only loopback, only for the benchmark.
final class BenchHTTPServer: Sendable {
    let port: Int
    private let listener: Int32
    private let isStopped = Atomic(false)
    private let connectionCount = Atomic(0)
    private let requestCount = Atomic(0)
    private let openConnections = RunningCounter()
    private let acceptLoopEnded = DispatchSemaphore(value: 0)
    private let keepAlive: Bool

    init(keepAlive: Bool = true) throws {
        self.keepAlive = keepAlive
        #if canImport(Glibc)
            let stream = Int32(SOCK_STREAM.rawValue)
        #else
            let stream = SOCK_STREAM
        #endif
        let fd = socket(AF_INET, stream, 0)
        guard fd >= 0 else { throw ServerError(message: "socket() failed, errno \(errno)") }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 256) == 0 else {
            let code = errno
            close(fd)
            throw ServerError(message: "could not listen on 127.0.0.1, errno \(code)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Connections accepted and requests answered so far.
    var counts: (connections: Int, requests: Int) {
        (connectionCount.load(ordering: .relaxed), requestCount.load(ordering: .relaxed))
    }

    /// The most connections that were open at once since the last call; resets the count.
    func takePeakOpenConnections() -> Int {
        openConnections.takePeak()
    }

    /// Stops accepting and closes the listening socket. Open connections end when their
    /// client closes them (the sessions are invalidated after each run).
    func stop() {
        guard !isStopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        acceptLoopEnded.wait()
        close(listener)
    }

    private func acceptLoop() {
        defer { acceptLoopEnded.signal() }
        while !isStopped.load(ordering: .acquiring) {
            // A short poll lets `stop()` end the loop; closing a socket does not promise to
            // wake a blocked `accept` on Linux.
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0 else { continue }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            var on: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
                setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            #endif
            connectionCount.add(1, ordering: .relaxed)
            let thread = Thread { [self] in serve(fd) }
            thread.stackSize = 256 << 10
            thread.start()
        }
    }

    /// Serves requests from one connection until the client closes it or asks to.
    private func serve(_ fd: Int32) {
        openConnections.enter()
        defer {
            openConnections.leave()
            close(fd)
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let endOfHead = Array("\r\n\r\n".utf8)
        while true {
            // Read until one request's head is complete (GETs carry no body).
            var headEnd = buffer.firstRange(of: endOfHead)
            while headEnd == nil {
                let count = recv(fd, &chunk, chunk.count, 0)
                guard count > 0, buffer.count < 64 * 1024 else { return }
                buffer += chunk[..<count]
                headEnd = buffer.firstRange(of: endOfHead)
            }
            let head = String(decoding: buffer[..<headEnd!.upperBound], as: UTF8.self)
            buffer.removeSubrange(..<headEnd!.upperBound)
            let lines = head.split(separator: "\r\n")
            let requestLine = lines.first?.split(separator: " ") ?? []
            guard requestLine.count == 3 else { return }
            let target = requestLine[1]
            let id = target.split(separator: "id=", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            let closing =
                !keepAlive
                || lines.dropFirst().contains {
                    $0.lowercased().hasPrefix("connection:") && $0.lowercased().contains("close")
                }
            let answer =
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(id.utf8.count)\r\n"
                + (closing ? "Connection: close\r\n" : "") + "\r\n" + id
            requestCount.add(1, ordering: .relaxed)
            guard write(fd, Array(answer.utf8)), !closing else { return }
        }
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in send(fd, raw.baseAddress! + offset, raw.count - offset, flags) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    struct ServerError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
