import Foundation

/// The routes of ``TestHTTPServer``. Each answers with `Connection: close`, except the
/// `/kept` routes, which keep the connection open for the next request.
///
/// | route | answer |
/// | --- | --- |
/// | `/hello` | 200 `hello, world` |
/// | `/missing` | 404 `no such page`, header `X-Reason: missing` |
/// | `/slow?ms=N` | 200 `slow done` after N ms; records whether the client hung up first |
/// | `/echo` | 200, headers `X-Method` = the method and `X-Probe` = the request's, body = the request body |
/// | `/large?bytes=N` | 200 with N bytes of ``largeBody(count:)`` |
/// | `/redirect` | 302 to `/hello` |
/// | `/inflight?ms=N&id=I` | 200 `I` after N ms; counts requests in flight |
/// | `/close-mid-body` | promises 1,000 bytes, sends 100, closes |
/// | `/wrong-length` | promises 1,000 bytes, sends 10, keeps the connection open |
/// | `/not-http` | a line that is not HTTP, then closes |
/// | `/fail-after?ms=N` | closes the connection after N ms without answering |
/// | `/large-slow` | 200, promises 1 MB, sends 10 kB every 20 ms; stops when the client hangs up |
/// | `/gated?bytes=N` | 200, N bytes of ``largeBody(count:)``: half, the rest after ``TestHTTPServer/openGate()`` |
/// | `/gated?bytes=N&chunked=1` | the same, chunked, without a `Content-Length` |
/// | `/flaky?bytes=N` | the first request promises N bytes, sends half and closes; later ones get 200 with N bytes |
/// | `/kept?id=I` | 200 `I`, keeping the connection open |
/// | `/kept-together?count=N&id=I` | 200 `I`, connection kept, once N of these came (1st–Nth, …), or after 10 s |
enum TestRoutes {
    /// Answers `request`; returns whether the connection stays open for another request.
    static func serve(_ request: TestHTTPRequest, on connection: TestConnection, server: TestHTTPServer) -> Bool {
        switch request.path {
        case "/kept":
            answer(connection, status: "200 OK", body: Data((request.query["id"] ?? "").utf8), keepingOpen: true)
            return true
        case "/kept-together":
            keptTogether(request, connection, server)
            return true
        case "/hello":
            answer(connection, status: "200 OK", body: Data("hello, world".utf8))
        case "/missing":
            answer(
                connection, status: "404 Not Found", headers: ["X-Reason": "missing"], body: Data("no such page".utf8))
        case "/slow":
            slow(request, connection, server)
        case "/echo":
            var headers = ["X-Method": request.method]
            headers["X-Probe"] = request.headers["x-probe"]
            answer(connection, status: "200 OK", headers: headers, body: request.body)
        case "/large":
            answer(connection, status: "200 OK", body: largeBody(count: Int(request.query["bytes"] ?? "") ?? 0))
        case "/redirect":
            answer(connection, status: "302 Found", headers: ["Location": "/hello"], body: Data())
        case "/inflight":
            inFlight(request, connection, server)
        case "/close-mid-body":
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n")
            connection.write([UInt8](repeating: 0x61, count: 100))
        case "/wrong-length":
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
            connection.write([UInt8](repeating: 0x62, count: 10))
            hold(connection, milliseconds: 10_000, server)
        case "/not-http":
            connection.write("SSH-2.0-OpenSSH_9.6 this is not an HTTP server\r\n")
        case "/large-slow":
            largeSlow(connection, server)
        case "/gated":
            gated(request, connection, server)
        case "/flaky":
            flaky(request, connection, server)
        case "/fail-after":
            hold(connection, milliseconds: Int32(request.query["ms"] ?? "") ?? 300, server)
        default:
            answer(connection, status: "404 Not Found", body: Data("unknown route".utf8))
        }
        return false
    }

    /// Deterministic bytes, so a test can compare what it received with what was sent.
    static func largeBody(count: Int) -> Data {
        let cycle = (0..<251).map { UInt8($0) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        while bytes.count < count { bytes += cycle.prefix(count - bytes.count) }
        return Data(bytes)
    }

    private static func answer(
        _ connection: TestConnection,
        status: String,
        headers: [String: String] = [:],
        body: Data,
        keepingOpen: Bool = false
    ) {
        var head = "HTTP/1.1 \(status)\r\nContent-Length: \(body.count)\r\n"
        if !keepingOpen { head += "Connection: close\r\n" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        if connection.write(head) { connection.write(body) }
    }

    private static func slow(_ request: TestHTTPRequest, _ connection: TestConnection, _ server: TestHTTPServer) {
        let milliseconds = Int32(request.query["ms"] ?? "") ?? 1_000
        if hold(connection, milliseconds: milliseconds, server) {
            server.updateRecord { $0.slowClosedByClient += 1 }
        } else {
            server.updateRecord { $0.slowAnswered += 1 }
            answer(connection, status: "200 OK", body: Data("slow done".utf8))
        }
    }

    private static func inFlight(_ request: TestHTTPRequest, _ connection: TestConnection, _ server: TestHTTPServer) {
        server.updateRecord { record in
            record.inFlight += 1
            record.maxInFlight = max(record.maxInFlight, record.inFlight)
        }
        // `meet=N`: first wait, up to 10 s, until N requests have been in flight at once, so that
        // a client that sends N at once shows it however slowly a loaded machine sends them.
        if let meet = Int(request.query["meet"] ?? "") {
            _ = server.waitUntil(timeout: 10) { $0.maxInFlight >= meet }
        }
        usleep(useconds_t((Int(request.query["ms"] ?? "") ?? 20) * 1_000))
        // Leave the count before answering: once the client has the answer it may start the
        // next request, which must not find this one still counted.
        server.updateRecord { $0.inFlight -= 1 }
        answer(connection, status: "200 OK", body: Data((request.query["id"] ?? "").utf8))
    }

    /// Answers once the group of `count` requests this one belongs to has arrived, so that
    /// they are all in flight together: each on a connection of its own.
    private static func keptTogether(_ request: TestHTTPRequest, _ connection: TestConnection, _ server: TestHTTPServer)
    {
        let count = max(Int(request.query["count"] ?? "") ?? 1, 1)
        let position = server.updateRecord { record in
            defer { record.keptTogether += 1 }
            return record.keptTogether
        }
        let groupEnd = (position / count + 1) * count
        _ = server.waitUntil(timeout: 10) { $0.keptTogether >= groupEnd }
        answer(connection, status: "200 OK", body: Data((request.query["id"] ?? "").utf8), keepingOpen: true)
    }

    private static func largeSlow(_ connection: TestConnection, _ server: TestHTTPServer) {
        guard connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\nConnection: close\r\n\r\n") else {
            return
        }
        for _ in 0..<100 where !server.stopped {
            guard connection.write([UInt8](repeating: 0x63, count: 10_000)) else { return }
            if hold(connection, milliseconds: 20, server) { return }
        }
    }

    private static func gated(_ request: TestHTTPRequest, _ connection: TestConnection, _ server: TestHTTPServer) {
        let body = largeBody(count: Int(request.query["bytes"] ?? "") ?? 0)
        let halves = [body.prefix(body.count / 2), body.dropFirst(body.count / 2)]
        if request.query["chunked"] == "1" {
            guard connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n") else {
                return
            }
            guard connection.write(chunk(halves[0])), waitForGate(connection, server) else { return }
            connection.write(chunk(halves[1]) + chunk(Data()))
        } else {
            guard connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n")
            else {
                return
            }
            guard connection.write(halves[0]), waitForGate(connection, server) else { return }
            connection.write(halves[1])
        }
    }

    /// One frame of a chunked body; an empty one ends the body.
    private static func chunk(_ bytes: Data) -> Data {
        Data((String(bytes.count, radix: 16) + "\r\n").utf8) + bytes + Data("\r\n".utf8)
    }

    /// Waits until the test opens the server's gate; `false` when the client hung up, the
    /// server stopped or 10 s passed first.
    private static func waitForGate(_ connection: TestConnection, _ server: TestHTTPServer) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 10)
        while !server.isGateOpen {
            guard Date() < deadline, !server.stopped, !connection.waitForClientClose(milliseconds: 5) else {
                return false
            }
        }
        return true
    }

    private static func flaky(_ request: TestHTTPRequest, _ connection: TestConnection, _ server: TestHTTPServer) {
        let body = largeBody(count: Int(request.query["bytes"] ?? "") ?? 0)
        guard server.snapshot.arrivals["/flaky"] == 1 else {
            answer(connection, status: "200 OK", body: body)
            return
        }
        if connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n") {
            connection.write(body.prefix(body.count / 2))
        }
    }

    /// Keeps the connection open for up to `milliseconds`; returns `true` when the client
    /// closed it first.
    @discardableResult
    private static func hold(_ connection: TestConnection, milliseconds: Int32, _ server: TestHTTPServer) -> Bool {
        var left = milliseconds
        while left > 0, !server.stopped {
            let slice = min(left, 20)
            if connection.waitForClientClose(milliseconds: slice) { return true }
            left -= slice
        }
        return false
    }
}
