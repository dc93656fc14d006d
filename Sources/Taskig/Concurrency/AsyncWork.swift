/// The work of a ``ThrowableTask`` made from an `async` closure: each run starts the closure
/// in a new `_Concurrency.Task` on Taskig's workers, which the run's cancellation cancels.
final class AsyncWork<Value>: SourceWork {
    let action: @Sendable () async throws -> Value

    init(action: @escaping @Sendable () async throws -> Value) {
        self.action = action
    }

    func start(reportingTo completion: @escaping @Sendable (Result<Value, Error>) -> Void) {
        let run = CurrentRun.run
        let work = _Concurrency.Task(executorPreference: WorkerTaskExecutor.shared) {
            let result: Result<Value, Error>
            do {
                result = .success(try await self.action())
            } catch is CancellationError where run?.isCancelled == true {
                // The Swift task was cancelled because the run was: report it as such.
                result = .failure(CancellableTaskError.taskWasCancelled)
            } catch {
                result = .failure(error)
            }
            completion(result)
        }
        // Closing the run, once the work has reported, removes the handler.
        run?.onCancel { work.cancel() }
    }
}
