import Dispatch
import OperationCore

/// Suspends the calling task as one waiter of an operation, and makes the task's cancellation
/// (or its own deadline) leave that operation without disturbing its other waiters.
///
/// Exactly-once resumption follows from ownership: the waiter sits in the operation's list
/// until either the operation settles (and the settling thread resumes it) or a leave removes
/// it (and resumes it with cancellation or the deadline's timeout). Only one of them can take
/// it out.
@usableFromInline
enum AwaitedWaiter {
  /// Where a registered waiter sits.
  struct Place: Sendable {
    let operation: any WaiterRemoving
    let id: OperationWaiter.ID

    func leave(with outcome: ErasedOutcome) {
      operation.removeWaiter(id, resumingWith: outcome)
    }
  }

  /// Registers a waiter through `register` and suspends until the outcome arrives, the task is
  /// cancelled, or `timeout` passes. `register` must add the waiter (or deliver to it at once)
  /// and return the operation and the waiter's identity, if it is still in the list.
  ///
  /// The deadline is a Dispatch timer (`asyncAfter` on a global queue): no thread waits for it.
  /// A waiter that gets its outcome first closes its registration, so the pending timer holds
  /// no operation until it fires, and then does nothing.
  @usableFromInline
  static func outcome(
    timeout: Duration?,
    register: (OperationWaiter) -> (any WaiterRemoving, OperationWaiter.ID?)
  ) async -> ErasedOutcome {
    if Task.isCancelled { return .cancelled }
    let registration = WaiterRegistration<Place, ErasedOutcome>()
    defer { if timeout != nil { registration.close() } }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let (operation, id) = register(OperationWaiter(continuation: continuation))
        guard let id else { return }
        let place = Place(operation: operation, id: id)
        if let reason = registration.record(place) {
          place.leave(with: reason)
        } else if let timeout {
          let expired = ErasedOutcome.timedOut(
            OperationTimeoutError(timeout: timeout, scope: .caller))
          DispatchQueue.global().asyncAfter(deadline: .now() + timeout.timeInterval) {
            registration.leave(expired)?.leave(with: expired)
          }
        }
      }
    } onCancel: {
      registration.leave(.cancelled)?.leave(with: .cancelled)
    }
  }
}
