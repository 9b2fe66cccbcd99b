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
  public nonisolated(nonsending) func waitUntilIdle() async throws {
    try Task.checkCancellation()
    // The idle wait has no deadline: it never reads the scheduler.
    let point = SuspensionPoint.register(timeout: nil, on: { scheduler }) { waiter in
      whenIdle(waiter).map { (self, $0) }
    }
    try await point.outcome().value(as: Void.self)
  }
}
