import Dispatch

extension ThrowableTaskType {
    /// A task that runs this one and then `continuation`, whatever the outcome (Bolts'
    /// `continueWith`; a promise's `then` and `catch` in one).
    ///
    /// ```swift
    /// let status = upload(file).continueWith { result in
    ///     switch result {
    ///     case .success: return "uploaded"
    ///     case .failure(let error): return "failed: \(error)"
    ///     }
    /// }
    /// ```
    @inlinable
    public func continueWith<U>(
        on queue: DispatchQueue = .global(),
        _ continuation: @escaping @Sendable (Result<ResultType, Error>) throws -> U
    ) -> ThrowableTask<U> {
        continued(on: queue) { outcome in
            let typed = outcome.typed(as: ResultType.self)
            return .finished(Result { try continuation(typed) as Any })
        }
    }
}
