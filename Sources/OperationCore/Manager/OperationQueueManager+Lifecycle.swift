import Foundation

extension OperationQueueManager: OperationLifecycleObserver {
  func operationDidSettle(_ operation: Operation, key: CoalescingKey?) {
    guard let key else { return }
    state.withLock { state in
      // Remove only this instance: a newer operation may already hold the key.
      if state.inFlight[key] === operation { state.inFlight[key] = nil }
    }
  }

  func operationDidFinish(_ operation: Operation) {
    guard outstanding.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 else { return }
    // Idle waiters register under the lock after reading the count, so none is missed. The
    // count is read again under the lock: work enqueued since it reached zero keeps the
    // waiters that registered for it, and its own finish releases them.
    let idleWaiters = state.withLock { state -> [@Sendable () -> Void] in
      guard outstanding.load(ordering: .sequentiallyConsistent) == 0 else { return [] }
      defer { state.idleWaiters.removeAll() }
      return Array(state.idleWaiters.values)
    }
    for waiter in idleWaiters { waiter() }
  }
}
