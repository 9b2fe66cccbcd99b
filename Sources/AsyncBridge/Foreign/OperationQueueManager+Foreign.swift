import Foundation
import OperationCore

extension OperationQueueManager {
  /// Runs `operation` (any `Operation`: a `BlockOperation`, a team's own subclass) on this
  /// manager's queue, or joins the same work in flight, and waits until it has finished.
  ///
  /// ```swift
  /// try await manager.perform(foreignOperation)
  /// ```
  ///
  /// Its adapter goes into the queue and starts it, so queue control and dependencies set
  /// before the call apply; its `completionBlock` is left alone. Hand over an operation nobody
  /// else enqueued or started; for one that runs elsewhere, use `waitUntilFinished(_:timeout:)`.
  ///
  /// Cancelling the calling task resumes this call at once with `CancellationError`, even
  /// while the operation is pending in a suspended queue; the operation is cancelled only when
  /// no other caller (awaiting task or completion handler) still waits for it. A `timeout`
  /// works the same way, with `OperationTimeoutError` (scope `.caller`). When every caller has
  /// left, `whenAbandoned` decides what happens to the work (`AbandonmentPolicy`). A task that
  /// is already cancelled gets `CancellationError` without enqueueing anything.
  ///
  /// - Parameters:
  ///   - operation: The work. One that has already finished is not run again.
  ///   - coalescingKey: Joins pending or executing work of the same class and key, and
  ///     `operation` is dropped (never started). Without a key, only the same instance joins.
  ///   - priority: The queue priority this caller asks for; nil uses the higher of the task's
  ///     and the operation's own.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the work once every caller has left: `.cancel` (the
  ///     default), `.finish` or `.linger(_:)`.
  /// - Throws: `CancellationError`, `OperationTimeoutError`, or
  ///   `ForeignOperationError/notReady(operationName:)`.
  @_disfavoredOverload
  public func perform(
    _ operation: some Operation,
    coalescingKey: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil,
    whenAbandoned: AbandonmentPolicy = .cancel
  ) async throws {
    // One that produces a result runs as such, so callers of both kinds share it.
    if let producing = operation as? any ResultProducingOperation {
      _ = try await outcome(
        of: producing, key: coalescingKey, priority: priority, timeout: timeout,
        whenAbandoned: whenAbandoned, observing: false)
      return
    }
    try await outcome(
      of: operation, as: Void.self, key: coalescingKey, priority: priority, timeout: timeout,
      whenAbandoned: whenAbandoned, read: ErasedOutcome.finished
    ).value(as: Void.self)
  }

  /// Runs `operation` on this manager's queue, or joins the same work in flight, and returns
  /// its `ResultProducingOperation/outcome`; as
  /// `perform(_:coalescingKey:priority:timeout:whenAbandoned:)`.
  ///
  /// - Parameters:
  ///   - operation: The work. One that has already finished returns its outcome at once.
  ///   - coalescingKey: Joins work of the same class and key; nil joins only the same instance.
  ///   - priority: The queue priority this caller asks for; nil uses the higher of the task's
  ///     and the operation's own.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the work once every caller has left.
  /// - Returns: The operation's value.
  /// - Throws: The operation's failure; `CancellationError`; `OperationTimeoutError`; or
  ///   `ForeignOperationError`.
  @discardableResult
  @_disfavoredOverload
  public func perform<Foreign: ResultProducingOperation>(
    _ operation: Foreign,
    coalescingKey: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil,
    whenAbandoned: AbandonmentPolicy = .cancel
  ) async throws -> Foreign.Output {
    try await outcome(
      of: operation, key: coalescingKey, priority: priority, timeout: timeout,
      whenAbandoned: whenAbandoned, observing: false)
  }

  /// Builds a foreign operation around a completion handler of the manager's, runs it on this
  /// manager's queue, or joins the same work in flight, and returns what that handler receives
  /// first.
  ///
  /// ```swift
  /// let questions = try await manager.perform { complete in
  ///   QuestionsFetchOperation(completionHandler: complete)
  /// }
  /// let user = try await manager.perform(coalescingKey: "user/7") { complete in
  ///   UserFetchOperation(completionHandler: complete)
  /// }
  /// ```
  ///
  /// Pass `complete` to the operation where it takes its completion handler (typically its
  /// initializer); `Value` is inferred from that handler's type. The operation's adapter goes
  /// into the queue and starts it, so queue control applies as with
  /// `perform(_:coalescingKey:priority:timeout:)`. What the handler receives first is the
  /// outcome, whenever it comes: before the operation reports finished, after, or later on
  /// another queue; later calls are ignored. An operation that is released without calling it
  /// gives `ForeignOperationError/completionHandlerReleased(operationName:)` at that moment.
  ///
  /// Cancelling the calling task resumes this call at once with `CancellationError`; the
  /// operation is cancelled (its `cancel()` called on a serial queue of its own, never on the
  /// pool tasks share) only when no other caller still waits for it. A `timeout` works the
  /// same way, with `OperationTimeoutError` (scope `.caller`). A task that is already cancelled
  /// gets `CancellationError` without building anything.
  ///
  /// - Parameters:
  ///   - coalescingKey: Joins work in flight that a request built under an equal key for the
  ///     same `Value`; `makeOperation` then never runs, so a joiner builds nothing. Nil: work
  ///     of its own.
  ///   - priority: The queue priority this caller asks for; nil uses the higher of the task's
  ///     and the operation's own.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the work once every caller has left: `.cancel` (the
  ///     default), `.finish` or `.linger(_:)`.
  ///   - makeOperation: Builds the operation around `complete`, the manager's handler. Called
  ///     at most once, before the call suspends.
  /// - Returns: The value the handler received.
  /// - Throws: The failure the handler received; `CancellationError`; `OperationTimeoutError`;
  ///   or `ForeignOperationError`.
  public func perform<Value: Sendable>(
    coalescingKey: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil,
    whenAbandoned: AbandonmentPolicy = .cancel,
    _ makeOperation: (_ complete: @escaping @Sendable (Result<Value, any Error>) -> Void) ->
      Operation
  ) async throws -> Value {
    try await SuspensionPoint.register(timeout: timeout, on: { scheduler }) { waiter in
      let admission = admitBuilt(
        key: coalescingKey, waiter: waiter,
        priority: priority ?? Operation.QueuePriority(Task.currentPriority),
        whenAbandoned: whenAbandoned, makeOperation)
      return admission.waiterID.map { (admission.operation, $0) }
    }.outcome().value(as: Value.self)
  }

  /// Waits, without blocking a thread, until `operation`, run elsewhere (by any queue, or by
  /// hand), has finished. Nothing is enqueued here, and this manager's queue control does not
  /// apply. Cancelling the calling task (or `timeout` passing) resumes the call at once; a
  /// waiter leaving never cancels the operation: it belongs to someone else.
  ///
  /// - Parameters:
  ///   - operation: The operation to wait for. One that has already finished returns at once.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  /// - Throws: `CancellationError` if the operation (or the task) was cancelled, or
  ///   `OperationTimeoutError`.
  public func waitUntilFinished(
    _ operation: some Operation, timeout: Duration? = nil
  ) async throws {
    if let producing = operation as? any ResultProducingOperation {
      _ = try await outcome(
        of: producing, key: nil, priority: nil, timeout: timeout, whenAbandoned: .cancel,
        observing: true)
      return
    }
    try await outcome(
      of: operation, as: Void.self, timeout: timeout, observing: true,
      read: ErasedOutcome.finished
    ).value(as: Void.self)
  }

  /// Waits until `operation`, run elsewhere, has finished, and returns its
  /// `ResultProducingOperation/outcome`; as `waitUntilFinished(_:timeout:)`.
  ///
  /// - Parameters:
  ///   - operation: The operation to wait for.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  /// - Returns: The operation's value.
  /// - Throws: The operation's failure; `CancellationError`; `OperationTimeoutError`; or
  ///   `ForeignOperationError/noOutcome(operationName:)`.
  @discardableResult
  public func waitUntilFinished<Foreign: ResultProducingOperation>(
    _ operation: Foreign, timeout: Duration? = nil
  ) async throws -> Foreign.Output {
    try await outcome(
      of: operation, key: nil, priority: nil, timeout: timeout, whenAbandoned: .cancel,
      observing: true)
  }

  /// The outcome of a ``ResultProducingOperation``, run here or (`observing`) elsewhere.
  private func outcome<Foreign: ResultProducingOperation>(
    of operation: Foreign, key: (any Hashable & Sendable)?, priority: Operation.QueuePriority?,
    timeout: Duration?, whenAbandoned policy: AbandonmentPolicy, observing: Bool
  ) async throws -> Foreign.Output {
    try await outcome(
      of: operation, as: Foreign.Output.self, key: key, priority: priority, timeout: timeout,
      whenAbandoned: policy, observing: observing, read: ErasedOutcome.produced(by:)
    ).value(as: Foreign.Output.self)
  }

  /// Waits for `operation`'s outcome: admitted with `key`, `priority` (the higher of the
  /// task's and the operation's own when nil) and `policy`, or (`observing`) waited for where
  /// it runs.
  private func outcome<Foreign: Operation, Output: Sendable>(
    of operation: Foreign, as output: Output.Type, key: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil, timeout: Duration?,
    whenAbandoned policy: AbandonmentPolicy = .cancel, observing: Bool = false,
    read: @escaping @Sendable (Foreign) -> ErasedOutcome
  ) async -> ErasedOutcome {
    await SuspensionPoint.register(timeout: timeout, on: { scheduler }) { waiter in
      let asked = priority ?? Operation.QueuePriority(Task.currentPriority)
      let own = operation.queuePriority
      let admission =
        observing
        ? ForeignAdapter<Output>.observe(operation, waiter: waiter, outcome: read)
        : admitForeign(
          operation, as: Output.self, key: key, waiter: waiter,
          priority: own.rawValue > asked.rawValue ? own : asked, whenAbandoned: policy,
          outcome: read)
      return admission.waiterID.map { (admission.operation, $0) }
    }.outcome()
  }
}
