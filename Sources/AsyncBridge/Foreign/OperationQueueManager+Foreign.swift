import Foundation
import OperationCore

extension OperationQueueManager {
  /// Runs `operation` (any `Operation`) on this manager's queue, or joins the same work in
  /// flight, and waits until it has finished: `try await manager.perform(foreignOperation)`.
  ///
  /// As `enqueue(_:coalescingKey:priority:callbackQueue:completion:)` (for one run elsewhere:
  /// `waitUntilFinished(_:timeout:)`). Cancelling the calling task resumes this call at once with
  /// `CancellationError`; docs/CANCELLATION.md says what happens to the work.
  ///
  /// - Parameters:
  ///   - operation: The work. One that has already finished is not run again.
  ///   - coalescingKey: Joins work in flight of the same class and key (`operation` is then
  ///     never started); nil joins only the same instance.
  ///   - priority: The queue priority this caller asks for (nil: the task's); at least the
  ///     operation's own.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the work once every caller has left.
  /// - Throws: `CancellationError`, `OperationTimeoutError`, or `ForeignOperationError`.
  @_disfavoredOverload
  public nonisolated(nonsending) func perform(
    _ operation: some Operation, coalescingKey: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil, timeout: Duration? = nil,
    whenAbandoned: AbandonmentPolicy = .cancel
  ) async throws {
    try await foreignValue(
      of: operation, as: Void.self, key: coalescingKey, priority: priority, timeout: timeout,
      whenAbandoned: whenAbandoned)
  }

  /// As `perform(_:coalescingKey:priority:timeout:whenAbandoned:)`, returning the operation's
  /// `ResultProducingOperation/outcome`.
  @discardableResult
  @_disfavoredOverload
  public nonisolated(nonsending) func perform<Foreign: ResultProducingOperation>(
    _ operation: Foreign, coalescingKey: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil, timeout: Duration? = nil,
    whenAbandoned: AbandonmentPolicy = .cancel
  ) async throws -> Foreign.Output {
    try await foreignValue(
      of: operation, as: Foreign.Output.self, key: coalescingKey, priority: priority,
      timeout: timeout, whenAbandoned: whenAbandoned)
  }

  /// Builds a foreign operation around `complete`, a completion handler of the manager's, runs
  /// it as `perform(_:coalescingKey:priority:timeout:whenAbandoned:)` does, and returns what
  /// that handler receives first.
  ///
  /// ```swift
  /// let user = try await manager.perform(coalescingKey: "user/7") { complete in
  ///   UserFetchOperation(completionHandler: complete)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - coalescingKey: Joins work in flight built under an equal key for the same `Value`;
  ///     `makeOperation` then never runs. Nil: work of its own.
  ///   - priority: The queue priority this caller asks for (nil: the task's); at least the one
  ///     the operation sets itself.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the work once every caller has left.
  ///   - makeOperation: Builds the operation around `complete`; called at most once, before the
  ///     call suspends (never by a task already cancelled).
  public nonisolated(nonsending) func perform<Value: Sendable>(
    coalescingKey: (any Hashable & Sendable)? = nil, priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil, whenAbandoned: AbandonmentPolicy = .cancel,
    _ makeOperation: (_ complete: @escaping @Sendable (Result<Value, any Error>) -> Void) ->
      Operation
  ) async throws -> Value {
    try await outcome(timeout: timeout, priority: priority) { waiter, priority in
      admitBuilt(
        key: coalescingKey, waiter: waiter, priority: priority, whenAbandoned: whenAbandoned,
        makeOperation)
    }.value(as: Value.self)
  }

  /// Builds a foreign operation that produces its own outcome, runs it as
  /// `perform(_:coalescingKey:priority:timeout:whenAbandoned:)` does, and returns its
  /// `ResultProducingOperation/outcome`.
  ///
  /// ```swift
  /// let target = try await manager.perform(coalescingKey: url) {
  ///   UnfurlURLOperation(shortURL: url)   // built only if nothing is in flight for `url`
  /// }
  /// ```
  ///
  /// Joining comes first: while work of class `Foreign` is in flight under an equal key (built
  /// here, or handed over with that `coalescingKey`), the call joins it and builds nothing, so
  /// no instance is made only to be dropped, and none is cancelled that no caller asked to
  /// cancel. docs/CANCELLATION.md says when the work's `cancel()` is called.
  ///
  /// - Parameters:
  ///   - coalescingKey: Joins work in flight of class `Foreign` under an equal key;
  ///     `makeOperation` then never runs. Nil: work of its own.
  ///   - priority: The queue priority this caller asks for (nil: the task's); at least the one
  ///     the operation sets itself.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the work once every caller has left.
  ///   - makeOperation: Builds the operation; called at most once, before the call suspends
  ///     (never by a task already cancelled).
  /// - Returns: The operation's outcome's value.
  /// - Throws: The outcome's error, `CancellationError`, `OperationTimeoutError`, or
  ///   `ForeignOperationError`.
  public nonisolated(nonsending) func perform<Foreign: ResultProducingOperation>(
    coalescingKey: (any Hashable & Sendable)? = nil, priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil, whenAbandoned: AbandonmentPolicy = .cancel,
    _ makeOperation: () -> Foreign
  ) async throws -> Foreign.Output {
    try await outcome(timeout: timeout, priority: priority) { waiter, priority in
      admitBuilt(
        key: coalescingKey, waiter: waiter, priority: priority, whenAbandoned: whenAbandoned,
        makeOperation)
    }.foreignValue(as: Foreign.Output.self)
  }

  /// Waits, without blocking a thread, until `operation`, run elsewhere (by any queue, or by
  /// hand), has finished. Nothing is enqueued; a caller leaving (cancelled, or past `timeout`)
  /// never cancels the operation: it belongs to someone else.
  ///
  /// - Throws: `CancellationError` if the operation (or the task) was cancelled, or
  ///   `OperationTimeoutError`.
  public nonisolated(nonsending) func waitUntilFinished(
    _ operation: some Operation, timeout: Duration? = nil
  )
    async throws
  {
    try await foreignValue(of: operation, as: Void.self, timeout: timeout, elsewhere: true)
  }

  /// As `waitUntilFinished(_:timeout:)`, returning the operation's
  /// `ResultProducingOperation/outcome`.
  @discardableResult
  public nonisolated(nonsending) func waitUntilFinished<Foreign: ResultProducingOperation>(
    _ operation: Foreign, timeout: Duration? = nil
  ) async throws -> Foreign.Output {
    try await foreignValue(
      of: operation, as: Foreign.Output.self, timeout: timeout, elsewhere: true)
  }

  /// The value of `operation` as `Output`, admitted with `key`, `priority` and `policy`, or
  /// (`elsewhere`) waited for where it runs.
  private nonisolated(nonsending) func foreignValue<Output: Sendable>(
    of operation: Operation, as output: Output.Type, key: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil, timeout: Duration?,
    whenAbandoned policy: AbandonmentPolicy = .cancel, elsewhere: Bool = false
  ) async throws -> Output {
    try await outcome(timeout: timeout, priority: priority) { waiter, asked in
      let own = operation.queuePriority
      return elsewhere
        ? ForeignAdapter.waitUntilFinished(operation, waiter: waiter)
        : admitForeign(
          operation, as: Output.self, key: key, waiter: waiter,
          priority: own.rawValue > asked.rawValue ? own : asked, whenAbandoned: policy)
    }.foreignValue(as: Output.self)
  }

  /// The outcome of the request `admit` makes with the calling task's waiter and the priority
  /// it asks for (`priority`, or the task's), with this caller's `timeout`.
  private nonisolated(nonsending) func outcome(
    timeout: Duration?, priority: Operation.QueuePriority?,
    _ admit: (OperationWaiter, Operation.QueuePriority) -> Admission<any Sendable, any Error>
  ) async -> ErasedOutcome {
    await SuspensionPoint.register(timeout: timeout, on: { scheduler }) { waiter in
      let admission = admit(waiter, priority ?? Operation.QueuePriority(Task.currentPriority))
      return admission.waiterID.map { (admission.operation, $0) }
    }.outcome()
  }
}
