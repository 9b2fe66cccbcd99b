import Foundation
import OperationCore

extension OperationQueueManager {
  /// Runs `operation` (any `Operation`: a `BlockOperation`, a legacy subclass) on this
  /// manager's queue, or joins the same work in flight, and waits until it has finished.
  ///
  /// ```swift
  /// try await manager.perform(legacyOperation)
  /// ```
  ///
  /// The operation is not added to the queue itself: a stand-in is, which starts it when the
  /// queue starts the stand-in, so width, priorities, suspension, dependencies (those set
  /// before this call) and `cancelAllOperations()` apply to it as to any operation here. Its
  /// `completionBlock` is left alone. Hand over an operation nobody else enqueued or started;
  /// to wait for one that runs elsewhere, use `waitUntilFinished(_:timeout:)`.
  ///
  /// Cancelling the calling task resumes this call at once with `CancellationError`, even
  /// while the operation is pending in a suspended queue; the operation is cancelled only when
  /// no other caller (awaiting task or completion handler) still waits for it. A `timeout`
  /// works the same way, with `OperationTimeoutError` (scope `.caller`). A task that is
  /// already cancelled gets `CancellationError` without enqueueing anything.
  ///
  /// - Parameters:
  ///   - operation: The work. One that has already finished is not run again: the call
  ///     returns (or throws its cancellation) at once.
  ///   - coalescingKey: While work of the same operation class and key is pending or executing,
  ///     this call joins it and `operation` is dropped (never started). Without a key, only a
  ///     second call for the same instance joins.
  ///   - priority: The queue priority this caller asks for; nil uses the higher of the task's
  ///     and the operation's own.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  /// - Throws: `CancellationError` if the operation (or the task) was cancelled,
  ///   `OperationTimeoutError` when the deadline passed, or
  ///   `ForeignOperationError/notReady(operationName:)`.
  @_disfavoredOverload
  public func perform(
    _ operation: some Operation,
    coalescingKey: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil
  ) async throws {
    // One that produces a result runs as such, so its failure counts and callers of both
    // kinds share it.
    if let producing = operation as? any ResultProducingOperation {
      try await performDiscardingOutput(
        producing, coalescingKey: coalescingKey, priority: priority, timeout: timeout)
      return
    }
    try await foreignOutcome(
      of: operation, as: Void.self, key: coalescingKey, priority: priority, timeout: timeout,
      outcome: ErasedOutcome.finished
    ).value(as: Void.self)
  }

  private func performDiscardingOutput<Foreign: ResultProducingOperation>(
    _ operation: Foreign, coalescingKey: (any Hashable & Sendable)?,
    priority: Operation.QueuePriority?, timeout: Duration?
  ) async throws {
    try await perform(operation, coalescingKey: coalescingKey, priority: priority, timeout: timeout)
  }

  /// Runs `operation` on this manager's queue, or joins the same work in flight, and returns
  /// its `ResultProducingOperation/outcome`.
  ///
  /// ```swift
  /// let page = try await manager.perform(legacyFetch, coalescingKey: "questions/stackoverflow/1")
  /// ```
  ///
  /// Scheduling, cancellation and the deadline behave as in
  /// `perform(_:coalescingKey:priority:timeout:)`.
  ///
  /// - Parameters:
  ///   - operation: The work. One that has already finished returns its outcome at once.
  ///   - coalescingKey: Joins work of the same class and key in flight; nil joins only the
  ///     same instance.
  ///   - priority: The queue priority this caller asks for; nil uses the higher of the task's
  ///     and the operation's own.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  /// - Returns: The operation's value.
  /// - Throws: The operation's failure; `CancellationError`; `OperationTimeoutError`; or
  ///   `ForeignOperationError` when it finished without an outcome or was not ready.
  @discardableResult
  @_disfavoredOverload
  public func perform<Foreign: ResultProducingOperation>(
    _ operation: Foreign,
    coalescingKey: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil
  ) async throws -> Foreign.Output {
    try await foreignOutcome(
      of: operation, as: Foreign.Output.self, key: coalescingKey, priority: priority,
      timeout: timeout, outcome: ErasedOutcome.produced(by:)
    ).value(as: Foreign.Output.self)
  }

  /// Waits, without blocking a thread, until `operation` has finished: an operation run
  /// elsewhere (added to any queue by other code, or started by hand). Nothing is enqueued on
  /// this manager, and its queue control does not apply.
  ///
  /// Cancelling the calling task (or its `timeout` passing) resumes this call at once; the
  /// operation is never cancelled by a waiter leaving: it belongs to someone else.
  ///
  /// - Parameters:
  ///   - operation: The operation to wait for. One that has already finished returns at once.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  /// - Throws: `CancellationError` if the operation (or the task) was cancelled, or
  ///   `OperationTimeoutError` when the deadline passed.
  public func waitUntilFinished(
    _ operation: some Operation, timeout: Duration? = nil
  ) async throws {
    if let producing = operation as? any ResultProducingOperation {
      try await waitDiscardingOutput(producing, timeout: timeout)
      return
    }
    try await observedOutcome(
      of: operation, as: Void.self, timeout: timeout, outcome: ErasedOutcome.finished
    ).value(as: Void.self)
  }

  private func waitDiscardingOutput<Foreign: ResultProducingOperation>(
    _ operation: Foreign, timeout: Duration?
  ) async throws {
    try await waitUntilFinished(operation, timeout: timeout)
  }

  /// Waits, without blocking a thread, until `operation`, run elsewhere, has finished, and
  /// returns its `ResultProducingOperation/outcome`.
  ///
  /// As `waitUntilFinished(_:timeout:)`: nothing is enqueued, and leaving
  /// never cancels the operation.
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
    try await observedOutcome(
      of: operation, as: Foreign.Output.self, timeout: timeout, outcome: ErasedOutcome.produced(by:)
    ).value(as: Foreign.Output.self)
  }

  private func foreignOutcome<Foreign: Operation, Output: Sendable>(
    of operation: Foreign, as output: Output.Type, key: (any Hashable & Sendable)?,
    priority: Operation.QueuePriority?, timeout: Duration?,
    outcome read: @escaping @Sendable (Foreign) -> ErasedOutcome
  ) async -> ErasedOutcome {
    await SuspensionPoint.register(timeout: timeout, on: { scheduler }) { waiter in
      let asked = priority ?? Operation.QueuePriority(Task.currentPriority)
      let own = operation.queuePriority
      let admission = admitForeign(
        operation, as: Output.self, key: key, waiter: waiter,
        priority: own.rawValue > asked.rawValue ? own : asked, outcome: read)
      return Self.place(of: admission, waiter: waiter)
    }.outcome()
  }

  private func observedOutcome<Foreign: Operation, Output: Sendable>(
    of operation: Foreign, as output: Output.Type, timeout: Duration?,
    outcome read: @escaping @Sendable (Foreign) -> ErasedOutcome
  ) async -> ErasedOutcome {
    await SuspensionPoint.register(timeout: timeout, on: { scheduler }) { waiter in
      Self.place(
        of: ForeignOperationHost<Output>.observe(operation, waiter: waiter, outcome: read),
        waiter: waiter)
    }.outcome()
  }

  /// Where the waiter sits, for its `SuspensionPoint`; a finished operation's outcome is handed
  /// to it at once, and it sits nowhere.
  private static func place<Output>(
    of admission: ForeignAdmission<Output>, waiter: OperationWaiter
  ) -> (any WaiterRemoving, OperationWaiter.ID)? {
    switch admission {
    case .finished(let outcome):
      waiter.resume(with: outcome)
      return nil
    case .waiting(let operation, let id):
      return id.map { (operation, $0) }
    }
  }
}
