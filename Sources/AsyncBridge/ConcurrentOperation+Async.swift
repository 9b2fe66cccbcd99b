import OperationCore

extension ConcurrentOperation {
  /// Waits for the outcome of an operation that is already enqueued (or will be).
  ///
  /// Cancelling the calling task resumes this call at once with `CancellationError` and
  /// removes it from the operation's waiters; the operation is cancelled only when no other
  /// caller still waits for it. If the operation has already finished, returns at once.
  ///
  /// - Returns: The operation's value.
  /// - Throws: The operation's failure, `CancellationError` or ``OperationTimeoutError``.
  public func value() async throws -> Value {
    try await outcome().untypedValue(Value.self)
  }

  fileprivate func outcome() async -> ErasedOutcome {
    await AwaitedWaiter.outcome { waiter in
      (self, addWaiter(waiter, leavesEarly: true))
    }
  }
}

extension ConcurrentOperation where Failure: OperationFailure {
  /// Waits for the outcome of an operation that is already enqueued, with typed failures.
  ///
  /// Cancellation behaves as in the untyped `value()`, but arrives as `Failure(cancellation:)`.
  ///
  /// - Returns: The operation's value.
  /// - Throws: The operation's typed failure.
  public func value() async throws(Failure) -> Value {
    try await outcome().typedValue(of: self)
  }
}
