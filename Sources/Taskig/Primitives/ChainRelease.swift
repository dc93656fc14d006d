/// Releases composed bodies one after another instead of one inside another.
///
/// A composed body holds the body it continues; freeing the last step of a chain of a
/// million would free the one before it inside its own `deinit`, and so on, a million frames
/// deep. So a body releases what it continues through a ``ThreadLocalDrain``: the first
/// release on a thread does it and then goes on with whatever the frees it causes hand back,
/// while a release made during that only queues its object.
enum ChainRelease {
    /// One reference to give up.
    private struct Reference: DrainItem {
        let object: Unmanaged<AnyObject>

        func run() {
            object.release()
        }
    }

    private static let drain = ThreadLocalDrain<Reference>()

    /// Releases `object` once, now or after the release this thread is busy with.
    static func release(_ object: Unmanaged<AnyObject>) {
        drain.run(Reference(object: object))
    }
}
