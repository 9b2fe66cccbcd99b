import Dispatch
import Foundation

extension OperationQueueManager: OperationLifecycleObserver {
  package func operationDidStart(_ operation: Operation, key: CoalescingKey?) {
    events.publish(event(.started, for: operation, key: key, waiterCount: 0))
    if hasStallThreshold.load(ordering: .relaxed), let threshold = stallThreshold {
      DispatchQueue.global().asyncAfter(deadline: .now() + threshold.timeInterval) {
        [weak self, weak operation] in
        guard let self, let operation, operation.isExecuting else { return }
        self.events.publish(
          self.event(.stalled, for: operation, key: key, waiterCount: 0, duration: threshold))
      }
    }
  }

  package func operationDidSettle(
    _ operation: Operation, key: CoalescingKey?, completion: OperationEvent.Completion,
    waiterCount: Int, duration: Duration?
  ) {
    if let key {
      state.withLock { state in
        // Remove only this instance: a newer operation may already hold the key.
        if state.inFlight[key] === operation { state.inFlight[key] = nil }
      }
    }
    events.publish(
      event(
        .finished(completion), for: operation, key: key, waiterCount: waiterCount,
        duration: duration))
  }

  package func operationDidFinish(_ operation: Operation) {
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

  func event(
    _ kind: OperationEvent.Kind, for operation: Operation, key: CoalescingKey?, waiterCount: Int,
    duration: Duration? = nil
  ) -> OperationEvent {
    OperationEvent(
      kind: kind,
      operationName: operation.name ?? String(describing: type(of: operation)),
      key: key,
      waiterCount: waiterCount,
      duration: duration,
      operationID: ObjectIdentifier(operation))
  }
}
