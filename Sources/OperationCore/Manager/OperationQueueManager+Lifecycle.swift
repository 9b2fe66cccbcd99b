import Foundation

extension OperationQueueManager: OperationLifecycleObserver {
  func publish(
    _ event: OperationStateMachine.LifecycleEvent, of operation: Operation, key: CoalescingKey?
  ) {
    events.publish(
      OperationEvent(
        kind: event.kind, operation: operation, key: key, waiterCount: event.waiterCount,
        duration: event.duration),
      to: event.audience)
  }

  func publishRetry(
    of operation: Operation, key: CoalescingKey?, attempt: Int, delay: Duration, failure: String,
    audience: UInt64
  ) {
    events.publish(
      OperationEvent(
        kind: .retrying(attempt: attempt, delay: delay), operation: operation, key: key,
        waiterCount: 0, duration: nil, failure: failure),
      to: audience)
  }

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
