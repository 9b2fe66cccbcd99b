import OperationCore

/// Registers the calling task as one waiter of an operation; the task then suspends on the
/// returned ``SuspensionPoint``. The task's cancellation (or its own deadline) makes it leave
/// that operation without disturbing its other waiters.
///
/// Exactly-once resumption follows from ownership: the waiter sits in the operation's list
/// until either the operation settles (and the settling thread hands it the outcome) or a
/// leave removes it (and hands it cancellation or the deadline's timeout). Only one of them
/// can take it out.
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

  /// Registers a waiter through `register`, synchronously, and returns where the calling task
  /// waits for its outcome. `register` must add the waiter (or deliver to it at once) and
  /// return the operation and the waiter's identity, if it is still in the list. A task that
  /// is already cancelled registers nothing and gets cancellation.
  @usableFromInline
  static func register(
    timeout: Duration?,
    _ register: (OperationWaiter) -> (any WaiterRemoving, OperationWaiter.ID?)
  ) -> SuspensionPoint {
    let point = SuspensionPoint()
    if Task.isCancelled {
      point.deliver(.cancelled)
      return point
    }
    let waiter = OperationWaiter(interest: .untilLeaving, callbackQueue: nil) {
      [point] outcome in point.deliver(outcome)
    }
    let (operation, id) = register(waiter)
    guard let id else { return point }
    point.record(Place(operation: operation, id: id))
    if let timeout { point.arm(deadline: timeout) }
    return point
  }
}
