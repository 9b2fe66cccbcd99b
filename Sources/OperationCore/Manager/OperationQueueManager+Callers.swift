extension OperationQueueManager {
  /// How many callers wait for the work in flight under `key` (awaiting tasks and completion
  /// handlers, not requests enqueued without one); 0 when nothing is in flight under it. A
  /// snapshot, for tests that wait until the callers they started have joined.
  package func callerCount(forKey key: CoalescingKey) -> Int {
    let work = state.withLock { $0.inFlight[key] }
    return (work as? any CallerCounting)?.callerCount ?? 0
  }
}

/// An operation that can say how many callers it has, whatever its value type.
protocol CallerCounting: AnyObject {
  /// How many callers wait for the outcome now.
  var callerCount: Int { get }
}

extension ConcurrentOperation: CallerCounting {}
