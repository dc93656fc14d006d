import Foundation

/// The socket calls whose spelling differs by platform, for the demo's ``LoopbackServer``.
enum SocketPlatform {
    /// `SOCK_STREAM`, which Glibc imports as an enum case and Darwin as a number.
    static var streamType: Int32 {
        #if canImport(Glibc)
            Int32(SOCK_STREAM.rawValue)
        #else
            SOCK_STREAM
        #endif
    }

    /// The flags of every `send`: a client that hangs up mid-answer must not kill the demo with
    /// SIGPIPE. Linux: `MSG_NOSIGNAL`. Darwin has no such flag; see ``keepFromRaisingSIGPIPE(_:)``.
    static var sendFlags: Int32 {
        #if canImport(Glibc)
            Int32(MSG_NOSIGNAL)
        #else
            0
        #endif
    }

    /// Darwin: sets `SO_NOSIGPIPE` on `fd`, its way to keep `send` from raising SIGPIPE.
    /// Linux: nothing (see ``sendFlags``).
    static func keepFromRaisingSIGPIPE(_ fd: Int32) {
        #if canImport(Darwin)
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}
