/// Runs Swift concurrency jobs on Taskig's worker threads.
///
/// The `async` body of a ``ThrowableTask`` runs here rather than on Swift's cooperative
/// pool, which has as many threads as there are cores: code that blocks those threads (a
/// blocking ``ThrowableTaskType/await()`` called from async code, say) could otherwise keep
/// the body from ever starting.
final class WorkerTaskExecutor: TaskExecutor {
    static let shared = WorkerTaskExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        // A job runs to its next suspension; it must run, so it is never refused a thread.
        _ = WorkerPool.shared.trySubmit({ job.runSynchronously(on: executor) }, admission: .always)
    }
}
