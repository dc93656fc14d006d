import Foundation

/// One accepted connection of the ``LoopbackServer``: reads a request's head, writes an answer.
struct LoopbackConnection {
    let fd: Int32

    init(fd: Int32) {
        self.fd = fd
        SocketPlatform.keepFromRaisingSIGPIPE(fd)
    }

    /// Reads the request line and headers; returns the path of the request line (`/bytes/64`),
    /// or `nil` when the client closed first or sent something else. Bodies are not read: the
    /// demo only sends GETs.
    func readRequestPath() -> String? {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let endOfHead = Array("\r\n\r\n".utf8)
        while received.firstRange(of: endOfHead) == nil {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0, received.count < 64 * 1024 else { return nil }
            received += chunk[..<count]
        }
        let requestLine = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3 else { return nil }
        return String(parts[1])
    }

    /// Writes the status line, headers and body; stops quietly if the client has gone.
    func answer(_ response: LoopbackResponse) {
        let head =
            "HTTP/1.1 \(response.status) \(response.reason)\r\n"
            + "Content-Type: \(response.contentType)\r\n"
            + "Content-Length: \(response.body.count)\r\n"
            + "Connection: close\r\n\r\n"
        let bytes = Array(head.utf8) + response.body
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, SocketPlatform.sendFlags)
            }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// Closes the connection.
    func hangUp() {
        close(fd)
    }
}
