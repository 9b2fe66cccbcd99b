import OperationCore

extension ConcurrentOperation {
  /// Waits for the outcome of an operation that is already enqueued (or will be).
  ///
  /// Cancelling the calling task resumes this call at once with `CancellationError` and
  /// removes it from the operation's waiters; the operation is cancelled only when no other
  /// caller still waits for it. A `timeout` works the same way, with `OperationTimeoutError`
  /// (scope `.caller`). If the operation has already finished, returns at once.
  ///
  /// - Parameters:
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the operation once every caller has left: `.cancel`
  ///     (the default), `.finish` or `.linger(_:)` (`AbandonmentPolicy`).
  /// - Returns: The operation's value.
  /// - Throws: The operation's failure, `CancellationError` or `OperationTimeoutError`.
  @_disfavoredOverload
  public nonisolated(nonsending) func value(
    timeout: Duration? = nil, whenAbandoned: AbandonmentPolicy = .cancel
  ) async throws -> Value {
    try await outcome(timeout: timeout, whenAbandoned: whenAbandoned).value(as: Value.self)
  }

  @inline(__always)
  fileprivate nonisolated(nonsending) func outcome(
    timeout: Duration?, whenAbandoned policy: AbandonmentPolicy
  ) async -> ErasedOutcome {
    await SuspensionPoint.register(timeout: timeout, on: { scheduler }) { waiter in
      addWaiter(waiter, whenAbandoned: policy).map { (self, $0) }
    }.outcome()
  }
}

extension ConcurrentOperation where Failure: OperationFailure {
  /// Waits for the outcome of an operation that is already enqueued, with typed failures.
  ///
  /// Cancellation, the deadline and `whenAbandoned` behave as in the untyped
  /// `value(timeout:whenAbandoned:)`, but cancellation and the deadline arrive as
  /// `Failure(cancellation:)` and `Failure(timeout:)`.
  ///
  /// - Parameters:
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the operation once every caller has left.
  /// - Returns: The operation's value.
  /// - Throws: The operation's typed failure.
  public nonisolated(nonsending) func value(
    timeout: Duration? = nil, whenAbandoned: AbandonmentPolicy = .cancel
  ) async throws(Failure) -> Value {
    try await outcome(timeout: timeout, whenAbandoned: whenAbandoned)
      .value(as: Value.self, failure: Failure.self)
  }
}
