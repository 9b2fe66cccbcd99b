import OperationCore

extension ConcurrentOperation {
  /// Waits for the outcome of an operation that is already enqueued (or will be).
  ///
  /// Cancelling the calling task resumes this call at once with `CancellationError` and
  /// removes it from the operation's waiters; the operation is cancelled only when no other
  /// caller still waits for it. A `timeout` works the same way, with `OperationTimeoutError`
  /// (scope `.caller`). If the operation has already finished, returns at once.
  ///
  /// - Parameter timeout: This caller's deadline, counted from the call; nil for none.
  /// - Returns: The operation's value.
  /// - Throws: The operation's failure, `CancellationError` or `OperationTimeoutError`.
  @_disfavoredOverload
  public func value(timeout: Duration? = nil) async throws -> Value {
    try await outcome(timeout: timeout).value(as: Value.self)
  }

  @inline(__always)
  fileprivate func outcome(timeout: Duration?) async -> ErasedOutcome {
    await SuspensionPoint.register(timeout: timeout, on: { scheduler }) { waiter in
      addWaiter(waiter).map { (self, $0) }
    }.outcome()
  }
}

extension ConcurrentOperation where Failure: OperationFailure {
  /// Waits for the outcome of an operation that is already enqueued, with typed failures.
  ///
  /// Cancellation and the deadline behave as in the untyped `value(timeout:)`, but arrive as
  /// `Failure(cancellation:)` and `Failure(timeout:)`.
  ///
  /// - Parameter timeout: This caller's deadline, counted from the call; nil for none.
  /// - Returns: The operation's value.
  /// - Throws: The operation's typed failure.
  public func value(timeout: Duration? = nil) async throws(Failure) -> Value {
    try await outcome(timeout: timeout).value(as: Value.self, failure: Failure.self)
  }
}
