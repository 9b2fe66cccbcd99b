import OperationCore

extension OperationQueueManager {
  /// Suspends until every operation enqueued through this manager has finished and every
  /// completion handler given to it has returned (on its callback queue too), without
  /// blocking a thread (unlike `OperationQueue.waitUntilAllOperationsAreFinished()`).
  ///
  /// Returns at once if the manager is idle. Operations added to the queue directly, not
  /// through the manager, are not waited for.
  ///
  /// - Throws: `CancellationError` if the calling task is cancelled while waiting; the
  ///   operations are not affected.
  public func waitUntilIdle() async throws {
    try Task.checkCancellation()
    let point = SuspensionPoint()
    if let id = whenIdle({ point.deliver(IdleWait.reached) }) {
      point.record(IdleWait(manager: self, id: id, point: point))
    }
    try await point.outcome().value(as: Void.self)
  }
}

/// A registered idle wait: leaving it hands the caller cancellation, unless the manager got to
/// it first.
private struct IdleWait: RegisteredWaiter {
  /// What the caller gets once the manager is idle.
  static let reached = ErasedOutcome.success(ValueBox(()))

  let manager: OperationQueueManager
  let id: UInt64
  /// Weak: the point holds this wait, and the waiting task holds the point.
  weak var point: SuspensionPoint?

  func leave(_ reason: LeaveReason) {
    // Whoever removes the idle waiter delivers: the manager or us. Only cancellation makes an
    // idle wait leave.
    if manager.removeIdleWaiter(id) != nil { point?.deliver(.cancelled) }
  }
}
