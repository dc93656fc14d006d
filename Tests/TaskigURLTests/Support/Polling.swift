import Foundation

/// Polls `condition` until it holds or `timeout` seconds (times ``timingSlack``) pass; returns
/// whether it held.
func waitUntil(timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout * timingSlack)
    while Date() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}
