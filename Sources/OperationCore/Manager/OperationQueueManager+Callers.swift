extension OperationQueueManager {
  /// How many callers wait for the work in flight under `key` (awaiting tasks and completion
  /// handlers, not requests enqueued without one); 0 when nothing is in flight under it. A
  /// snapshot, for tests that wait until the callers they started have joined.
  package func callerCount(forKey key: CoalescingKey) -> Int {
    let work = state.withLock { $0.inFlight[key] }
    return (work as? any WaiterCounting)?.waiterCount ?? 0
  }
}

/// An operation that can say how many waiters it has, whatever its value type.
protocol WaiterCounting: AnyObject {
  /// How many waiters wait for the outcome now.
  var waiterCount: Int { get }
}

extension ConcurrentOperation: WaiterCounting {}
