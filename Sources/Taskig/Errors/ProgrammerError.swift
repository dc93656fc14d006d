/// Stops the program with `message` when `condition` is false: how Taskig reports a
/// documented programmer error (a `concurrency` below 1, a NaN timeout, …).
///
/// Unlike `precondition`, whose message optimised builds drop, this prints the message in
/// every build, so the person reading the crash learns what to change.
@usableFromInline
func requireCorrectUse(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() {
        fatalError(message(), file: file, line: line)
    }
}
