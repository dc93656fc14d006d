import Dispatch

extension ThrowableTaskType {
    /// A cold task that runs this task's chain and then `transform`, on `queue`.
    ///
    /// The new task shares this task's cancellation state when it has one, so cancelling
    /// either cancels both; this is how cancelling a composed task reaches the task it waits
    /// for.
    @inlinable
    func continued<U>(
        on queue: DispatchQueue,
        _ transform: @escaping @Sendable (Result<Any, Error>) -> StepOutcome
    ) -> ThrowableTask<U> {
        let upstream =
            (self as? ChainLinkCarrier)?.chainLink
            ?? ChainLink(upstream: nil, operation: .start(AwaitedWork.run(of: self)))
        let kind = QueueAffinity.kind(of: queue)
        let link = ChainLink(upstream: upstream, operation: .step(queue: queue, kind: kind, transform: transform))
        let token = (self as? CancellationTokenCarrier)?.cancellationToken ?? CancellationToken()
        return ThrowableTask<U>(
            executionQueue: queue, executionQueueKind: kind, cancellationToken: token, chainLink: link
        ) { completion in
            ChainRun(tail: link, token: token) { outcome in
                completion(outcome.map { $0 as! U })
            }.start()
        }
    }
}

extension Result where Success == Any {
    /// The outcome with its value cast back to the type the chain put in.
    @inlinable
    func typed<T>(as _: T.Type) -> Result<T, Error> where Failure == Error {
        map { $0 as! T }
    }
}
