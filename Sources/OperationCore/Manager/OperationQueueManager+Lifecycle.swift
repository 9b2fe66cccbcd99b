import Foundation

extension OperationQueueManager: ClaimingManager {
  func operationDidSettle(_ operation: Operation, key: CoalescingKey?) {
    guard let key else { return }
    state.withLock { state in
      // Remove only this instance: a newer operation may already hold the key.
      if state.inFlight[key] === operation { state.inFlight[key] = nil }
    }
  }

  func operationDidFinish(_ operation: Operation) {
    guard outstanding.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 else { return }
    releaseIdleWaitersIfIdle()
  }
}

extension OperationQueueManager {
  /// `completion`, counted among the handlers the manager still owes while its call waits on
  /// `callbackQueue`: the manager is not idle until it has returned. A handler without a
  /// callback queue needs no count: it returns before its operation finishes.
  @usableFromInline
  package func counted<Outcome>(
    _ completion: @escaping @Sendable (Outcome) -> Void, on callbackQueue: CallbackQueue?
  ) -> @Sendable (Outcome) -> Void {
    guard callbackQueue != nil else { return completion }
    pendingCallbacks.add(1, ordering: .sequentiallyConsistent)
    return { [weak self] outcome in
      completion(outcome)
      guard let self,
        pendingCallbacks.subtract(1, ordering: .sequentiallyConsistent).newValue == 0
      else { return }
      releaseIdleWaitersIfIdle()
    }
  }

  /// Runs the idle waiters if the manager is idle now. Idle waiters register under the lock
  /// after reading the counts, so none is missed. The counts are read again under the lock:
  /// work enqueued since they reached zero keeps the waiters that registered for it, and its
  /// own end releases them.
  private func releaseIdleWaitersIfIdle() {
    let idleWaiters = state.withLock { state -> [OperationWaiter] in
      guard isIdle else { return [] }
      defer { state.idleWaiters.removeAll() }
      return Array(state.idleWaiters.values)
    }
    for waiter in idleWaiters { waiter.resume(with: Self.reachedIdle) }
  }
}
