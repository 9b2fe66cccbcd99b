import Foundation
import OperationCore

extension OperationQueueManager {
  /// Enqueues `operation`, or joins an identical one in flight, and returns its value, handing
  /// `onProgress` the progress of the work as it goes.
  ///
  /// Every coalesced caller shares one progress: a call that joins work under way is handed the
  /// current value at once, then every later one. Calls are serial, in `onProgress`'s own
  /// isolation: a closure written in main-actor code is main-actor isolated and runs on the main
  /// actor (so it may touch main-actor state as written), a nonisolated one on a global dispatch
  /// queue; never on the thread that reports. A slow one gets the newest value rather than a
  /// backlog; values never go backwards; and none comes after this call has returned. Cancellation, the
  /// deadline, abandonment and coalescing behave as in
  /// ``perform(_:priority:timeout:whenAbandoned:)-9lo7d``; a caller that leaves is called no
  /// more.
  ///
  /// ```swift
  /// let page = try await manager.perform(fetch, onProgress: { progress in
  ///   if let fraction = progress.fractionCompleted { bar.show(fraction) }
  /// })
  /// ```
  ///
  /// - Parameters:
  ///   - operation: The work, coalesced by its key.
  ///   - priority: The queue priority this caller asks for; nil uses the task's.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the work once every caller has left: `.cancel` (the
  ///     default), `.finish` or `.linger(_:)`.
  ///   - onProgress: Called with the work's progress (see
  ///     `ConcurrentOperation.reportProgress(completed:total:)`), in its own isolation, which a
  ///     closure takes from the code that writes it.
  /// - Returns: The operation's value.
  /// - Throws: The operation's failure, `CancellationError` when cancelled, or
  ///   `OperationTimeoutError` when a time limit expired.
  @_disfavoredOverload
  @inlinable
  public nonisolated(nonsending) func perform<Value, Failure>(
    _ operation: consuming ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil,
    whenAbandoned: AbandonmentPolicy = .cancel,
    @_inheritActorContext onProgress:
      @escaping @isolated(any) @Sendable (OperationProgress) ->
      Void
  ) async throws -> Value {
    try await observedOutcome(
      of: operation, priority: priority, timeout: timeout, whenAbandoned: whenAbandoned,
      onProgress: onProgress
    ).value(as: Value.self)
  }

  /// Enqueues `operation`, or joins an identical one in flight, and returns its value, with
  /// typed failures, handing `onProgress` the progress of the work as it goes, as the untyped
  /// overload does.
  ///
  /// - Parameters:
  ///   - operation: The work, coalesced by its key.
  ///   - priority: The queue priority this caller asks for; nil uses the task's.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the work once every caller has left.
  ///   - onProgress: Called with the work's shared progress, in its own isolation.
  /// - Returns: The operation's value.
  /// - Throws: The operation's typed failure.
  @inlinable
  public nonisolated(nonsending) func perform<Value, Failure: OperationFailure>(
    _ operation: consuming ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil,
    whenAbandoned: AbandonmentPolicy = .cancel,
    @_inheritActorContext onProgress:
      @escaping @isolated(any) @Sendable (OperationProgress) ->
      Void
  ) async throws(Failure) -> Value {
    try await observedOutcome(
      of: operation, priority: priority, timeout: timeout, whenAbandoned: whenAbandoned,
      onProgress: onProgress
    ).value(as: Value.self, failure: Failure.self)
  }

  /// ``outcome(of:priority:timeout:whenAbandoned:)`` for a caller that observes progress: its
  /// waiter hands `onProgress` the progress of the work it waits on, and closes it before the
  /// outcome. A separate path, so a caller that observes nothing pays nothing for it.
  @usableFromInline
  nonisolated(nonsending) func observedOutcome<Value, Failure>(
    of operation: consuming ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority?,
    timeout: Duration?,
    whenAbandoned policy: AbandonmentPolicy,
    onProgress: @escaping @isolated(any) @Sendable (OperationProgress) -> Void
  ) async -> ErasedOutcome {
    var request = Optional(consume operation)
    let point = SuspensionPoint.register(timeout: timeout, on: { scheduler }) { waiter in
      guard let operation = request.take() else { preconditionFailure("registered twice") }
      let priority = priority ?? Operation.QueuePriority(Task.currentPriority)
      let admission = admit(
        operation, waiter: waiter, priority: priority, whenAbandoned: policy,
        observer: ProgressObserver(isolated: onProgress))
      return admission.waiterID.map { (admission.operation, $0) }
    }
    return await point.outcome()
  }
}
