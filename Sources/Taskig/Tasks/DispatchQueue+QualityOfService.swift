import Dispatch

extension DispatchQueue {
    /// The global concurrent queue for work the user is waiting on to interact.
    public static var userInteractive: DispatchQueue { .global(qos: .userInteractive) }
    /// The global concurrent queue for work the user started and waits for.
    public static var userInitiated: DispatchQueue { .global(qos: .userInitiated) }
    /// The global concurrent queue for long-running work the user is not waiting on.
    public static var utility: DispatchQueue { .global(qos: .utility) }
    /// The global concurrent queue for maintenance work the user does not see.
    public static var background: DispatchQueue { .global(qos: .background) }
}
