import Foundation
import OperationCore

/// A request a manager has admitted, whose caller awaits it later: the two halves of
/// ``OperationQueueManager/perform(_:priority:timeout:whenAbandoned:)-9lo7d`` apart, so that a
/// timer's action (a page sequence's backoff ending) admits the request at once, on its own thread,
/// and the waiting task collects the outcome when it resumes.
package struct AdmittedRequest<Value: Sendable>: Sendable {
  private let point: SuspensionPoint

  fileprivate init(point: SuspensionPoint) {
    self.point = point
  }

  /// Waits for the outcome, as `perform` does: cancelling the calling task (before or while it
  /// waits) makes this caller leave with `CancellationError`, cancelling the work only when no
  /// other caller waits for it. Called once.
  package nonisolated(nonsending) func value() async throws -> Value {
    try await point.outcome().value(as: Value.self)
  }
}

extension OperationQueueManager {
  /// Admits `operation` now, with a waiter that leaves as an awaiting task's does, and returns
  /// the request for its caller to await with ``AdmittedRequest/value()``, which it must.
  ///
  /// - Parameters:
  ///   - operation: The work, coalesced by its key as with `perform`.
  ///   - priority: The priority of the task that will await it.
  package func admitRequest<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>, priority: TaskPriority
  ) -> AdmittedRequest<Value> {
    AdmittedRequest(
      point: register(
        operation, priority: Operation.QueuePriority(priority), timeout: nil,
        whenAbandoned: .cancel))
  }
}
