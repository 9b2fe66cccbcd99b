import Foundation
import OperationCore

/// A request a manager has admitted, whose caller awaits its outcome later: the two halves of
/// ``OperationCore/OperationQueueManager/perform(_:priority:timeout:whenAbandoned:)-9lo7d``
/// apart.
///
/// Get one from ``OperationCore/OperationQueueManager/admit(_:priority:timeout:whenAbandoned:)``
/// where the moment of admission matters and the waiting task runs only later: in the action of
/// ``ManagerClock/sleep(until:then:)``, say, so that a request waiting out a backoff is admitted
/// (and joins or starts its work) the moment the backoff ends.
///
/// The request is a caller from its admission on: it counts among the work's callers and keeps
/// the work from being abandoned until ``value()`` has returned. Await it once, from the task it
/// was admitted for.
public struct AdmittedRequest<Value: Sendable>: Sendable {
  private let point: SuspensionPoint

  fileprivate init(point: SuspensionPoint) {
    self.point = point
  }

  /// Waits for the outcome, as `perform` does, in the caller's isolation.
  ///
  /// Cancelling the calling task, before or while it waits, makes this caller leave with
  /// `CancellationError` at once; the work is cancelled only when no other caller waits for it.
  /// Call it once: the outcome is handed over to the first call.
  ///
  /// - Returns: The operation's value.
  /// - Throws: The operation's failure, `CancellationError` when cancelled (the task or the
  ///   operation), or `OperationTimeoutError` when a time limit expired.
  public nonisolated(nonsending) func value() async throws -> Value {
    try await point.outcome().value(as: Value.self)
  }
}

extension OperationQueueManager {
  /// Admits `operation` now, or joins an identical one in flight, and returns the request for
  /// its caller to await with ``AdmittedRequest/value()``.
  ///
  /// `try await manager.admit(operation).value()` does what
  /// ``perform(_:priority:timeout:whenAbandoned:)-9lo7d`` does. Apart, admission can happen where
  /// no task waits: in a timer's action (``ManagerClock/sleep(until:then:)``), the request is
  /// admitted the moment the timer fires, and the task collects the outcome when it runs again.
  ///
  /// ```swift
  /// let fetch = FetchPage(number: 2)
  /// let priority = Operation.QueuePriority(Task.currentPriority)
  /// let request = try await manager.clock.sleep(until: backoffEnd) {
  ///   manager.admit(fetch, priority: priority)
  /// }
  /// let page = try await request.value()
  /// ```
  ///
  /// A task that is already cancelled when it admits gets a request that fails with
  /// `CancellationError` without enqueueing anything.
  ///
  /// - Parameters:
  ///   - operation: The work, coalesced by its key as with `perform`.
  ///   - priority: The queue priority the caller asks for; nil uses the priority of the calling
  ///     task, or of the thread where no task runs (a timer's action): pass the waiting task's
  ///     there.
  ///   - timeout: The caller's deadline, counted from the admission; nil for none.
  ///   - whenAbandoned: What happens to the work once this caller and every other one have
  ///     left: `.cancel` (the default), `.finish` or `.linger(_:)`.
  /// - Returns: The admitted request; await its ``AdmittedRequest/value()`` once.
  public func admit<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil,
    whenAbandoned: AbandonmentPolicy = .cancel
  ) -> AdmittedRequest<Value> {
    AdmittedRequest(
      point: register(
        operation, priority: priority, timeout: timeout, whenAbandoned: whenAbandoned))
  }
}
