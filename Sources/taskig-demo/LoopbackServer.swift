import Foundation
import Synchronization

/// A tiny HTTP/1.1 server on 127.0.0.1, on a port the system picks, so the fetch section
/// needs no network.
///
/// Each connection gets a thread and one request, answered with `Connection: close`, so each
/// request is one TCP connection and the number of connections being served is the number
/// of requests the client has in flight. The routes are in ``LoopbackResponse``.
final class LoopbackServer: Sendable {
    /// The port it listens on.
    let port: Int
    private let listener: Int32
    private let isStopped = Atomic(false)
    // Atomics rather than `Mutex`, which ThreadSanitizer cannot see on Linux.
    private let inFlight = Atomic(0)
    private let peak = Atomic(0)
    private let acceptLoopEnded = DispatchSemaphore(value: 0)

    /// Starts listening and accepting on a thread of its own.
    init() throws {
        let fd = socket(AF_INET, SocketPlatform.streamType, 0)
        guard fd >= 0 else { throw DemoFailure(description: "socket() failed, errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0  // the system picks a free port
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw DemoFailure(description: "could not listen on 127.0.0.1, errno \(code)")
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

    /// The most requests it was serving at one time.
    var peakInFlight: Int { peak.load(ordering: .relaxed) }

    /// Stops accepting, waits for the accept loop to end, and closes the listening socket.
    /// Requests being served finish on their own threads.
    func stop() {
        guard !isStopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        acceptLoopEnded.wait()
        close(listener)
    }

    private func acceptLoop() {
        defer { acceptLoopEnded.signal() }
        while !isStopped.load(ordering: .acquiring) {
            // A short poll lets `stop()` end the loop: closing the socket is not promised to
            // wake a blocked `accept` on Linux.
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0 else { continue }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            Thread { [self] in serve(LoopbackConnection(fd: fd)) }.start()
        }
    }

    private func serve(_ connection: LoopbackConnection) {
        defer { connection.hangUp() }
        guard let path = connection.readRequestPath() else { return }
        let now = inFlight.add(1, ordering: .relaxed).newValue
        defer { inFlight.subtract(1, ordering: .relaxed) }
        var highest = peak.load(ordering: .relaxed)
        while now > highest {
            let (exchanged, original) = peak.compareExchange(expected: highest, desired: now, ordering: .relaxed)
            if exchanged { break }
            highest = original
        }
        let response = LoopbackResponse.answering(path)
        if response.delay > 0 { Thread.sleep(forTimeInterval: response.delay) }
        connection.answer(response)
    }
}
