import OperationCore

/// Suspends the calling task as one waiter of an operation, and makes the task's cancellation
/// (or its own deadline) leave that operation without disturbing its other waiters.
///
/// Exactly-once resumption follows from ownership: the waiter sits in the operation's list
/// until either the operation settles (and the settling thread resumes it) or a leave removes
/// it (and resumes it with cancellation or the deadline's timeout). Only one of them can take
/// it out.
///
/// Every task waiting on shared work keeps this call's frames for as long as it waits: they
/// are kept small (see docs/PERFORMANCE.md, "Memory per waiter").
@usableFromInline
enum AwaitedWaiter {
  /// A waiter registered on an operation.
  private struct Place: RegisteredWaiter {
    let operation: any WaiterRemoving
    let id: OperationWaiter.ID

    func leave(_ reason: LeaveReason) {
      switch reason {
      case .cancellation:
        operation.removeWaiter(id, resumingWith: .cancelled)
      case .deadline(let timeout):
        let error = OperationTimeoutError(timeout: timeout, scope: .caller)
        operation.removeWaiter(id, resumingWith: .timedOut(error))
      }
    }
  }

  /// Registers a waiter through `register` and suspends until the outcome arrives, the task is
  /// cancelled, or `timeout` passes. `register` must add the waiter (or deliver to it at once)
  /// and return the operation and the waiter's identity, if it is still in the list.
  @usableFromInline
  static func outcome(
    timeout: Duration?,
    register: (OperationWaiter) -> (any WaiterRemoving, OperationWaiter.ID?)
  ) async -> ErasedOutcome {
    if Task.isCancelled { return .cancelled }
    let registration = WaiterRegistration()
    defer { if timeout != nil { registration.close() } }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let (operation, id) = register(OperationWaiter(continuation: continuation))
        guard let id else { return }
        let place = Place(operation: operation, id: id)
        if let reason = registration.record(place) {
          place.leave(reason)
        } else if let timeout {
          registration.arm(deadline: timeout)
        }
      }
    } onCancel: {
      registration.leave(.cancellation)
    }
  }
}
