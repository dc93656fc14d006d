import Foundation

/// What the ``LoopbackServer`` answers, by path: its routes.
///
/// - `/` a short greeting;
/// - `/bytes/N` N bytes (up to 16 MiB);
/// - `/slow/MS` a short body after MS milliseconds (up to 5 s);
/// - anything else a 404 with a body, which a plain TaskigURL fetch returns as a normal
///   response rather than an error.
struct LoopbackResponse {
    var status = 200
    var reason = "OK"
    var contentType = "text/plain; charset=utf-8"
    var body: [UInt8]
    /// How long to wait before answering, in seconds.
    var delay: Double = 0

    static func answering(_ path: String) -> LoopbackResponse {
        let parts = path.split(separator: "/")
        switch (parts.first, parts.count > 1 ? Int(parts[1]) : nil) {
        case (nil, _):
            return LoopbackResponse(body: Array("Hello from taskig-demo's loopback server.\n".utf8))
        case ("bytes", let count?) where (0...16 << 20).contains(count):
            return LoopbackResponse(
                contentType: "application/octet-stream",
                body: [UInt8](repeating: UInt8(ascii: "t"), count: count))
        case ("slow", let milliseconds?) where (0...5000).contains(milliseconds):
            return LoopbackResponse(body: Array("Sorry for the wait.\n".utf8), delay: Double(milliseconds) / 1000)
        default:
            return LoopbackResponse(status: 404, reason: "Not Found", body: Array("No route for \(path).\n".utf8))
        }
    }
}
