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
    let registration = Locked(IdleRegistration.pending)
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        guard let id = whenIdle({ continuation.resume() }) else { return }
        let cancelledMeanwhile = registration.withLock { state in
          if case .cancelled = state { return true }
          state = .registered(id, continuation)
          return false
        }
        if cancelledMeanwhile, removeIdleWaiter(id) != nil {
          continuation.resume(throwing: CancellationError())
        }
      }
    } onCancel: {
      let registered = registration.withLock {
        state -> (UInt64, CheckedContinuation<Void, any Error>)? in
        defer { state = .cancelled }
        if case .registered(let id, let continuation) = state { return (id, continuation) }
        return nil
      }
      // Whoever removes the idle waiter resumes the continuation: the manager or us.
      if let (id, continuation) = registered, removeIdleWaiter(id) != nil {
        continuation.resume(throwing: CancellationError())
      }
    }
  }
}

/// Where an idle wait stands, shared by the waiting code and its cancellation handler.
private enum IdleRegistration {
  case pending
  case registered(UInt64, CheckedContinuation<Void, any Error>)
  case cancelled
}
