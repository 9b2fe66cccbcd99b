import OperationCore

extension OperationQueueManager {
  /// Suspends until every operation enqueued through this manager has finished, without
  /// blocking a thread (unlike `OperationQueue.waitUntilAllOperationsAreFinished()`).
  ///
  /// Returns at once if the manager is idle. Operations added to the queue directly, not
  /// through the manager, are not waited for.
  ///
  /// - Throws: `CancellationError` if the calling task is cancelled while waiting; the
  ///   operations are not affected.
  public func waitUntilIdle() async throws {
    try Task.checkCancellation()
    let registration = WaiterRegistration()
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        guard let id = whenIdle({ continuation.resume() }) else { return }
        let wait = IdleWait(manager: self, id: id, continuation: continuation)
        if let reason = registration.record(wait) { wait.leave(reason) }
      }
    } onCancel: {
      registration.leave(.cancellation)
    }
  }
}

/// A registered idle wait: leaving it resumes the caller, unless the manager got to it first.
private struct IdleWait: RegisteredWaiter {
  let manager: OperationQueueManager
  let id: UInt64
  let continuation: CheckedContinuation<Void, any Error>

  func leave(_ reason: LeaveReason) {
    // Whoever removes the idle waiter resumes the continuation: the manager or us. Only
    // cancellation makes an idle wait leave.
    if manager.removeIdleWaiter(id) != nil { continuation.resume(throwing: CancellationError()) }
  }
}
