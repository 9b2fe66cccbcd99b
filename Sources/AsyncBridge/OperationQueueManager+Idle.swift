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
    let registration = WaiterRegistration<IdleWait, CancellationError>()
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        guard let id = whenIdle({ continuation.resume() }) else { return }
        let wait = IdleWait(manager: self, id: id, continuation: continuation)
        if let reason = registration.record(wait) { wait.leave(throwing: reason) }
      }
    } onCancel: {
      registration.leave(CancellationError())?.leave(throwing: CancellationError())
    }
  }
}

/// A registered idle wait: leaving it resumes the caller, unless the manager got to it first.
private struct IdleWait: Sendable {
  let manager: OperationQueueManager
  let id: UInt64
  let continuation: CheckedContinuation<Void, any Error>

  func leave(throwing error: CancellationError) {
    // Whoever removes the idle waiter resumes the continuation: the manager or us.
    if manager.removeIdleWaiter(id) != nil { continuation.resume(throwing: error) }
  }
}
