/// Runs Swift concurrency jobs on Taskig's worker threads.
///
/// The `async` body of a ``ThrowableTask`` runs here rather than on Swift's cooperative
/// pool, which has as many threads as there are cores: code that blocks those threads (a
/// blocking ``ThrowableTaskType/await(file:line:)`` called from async code, say) could otherwise keep
/// the body from ever starting. Its jobs may use the threads ``WorkerPool`` keeps for them, so
/// ordinary work that blocks every other worker while it waits for an `async` body cannot
/// keep that body from running.
final class WorkerTaskExecutor: TaskExecutor {
    static let shared = WorkerTaskExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        WorkerPool.shared.submit({ job.runSynchronously(on: executor) }, kind: .swiftJob)
    }
}
