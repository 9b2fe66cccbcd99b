import Foundation

/// Receives an operation's lifecycle from the operation itself, outside the operation's lock.
/// ``OperationQueueManager`` implements it to keep its coalescing index, its count of
/// outstanding operations and its event stream.
package protocol OperationLifecycleObserver: AnyObject, Sendable {
  /// The queue started the operation and its work is about to begin.
  func operationDidStart(_ operation: Operation, key: CoalescingKey?)
  /// The operation's outcome is fixed and is being delivered to `waiterCount` waiters.
  /// `duration` runs from the start (nil if the queue never started it).
  func operationDidSettle(
    _ operation: Operation, key: CoalescingKey?, completion: OperationEvent.Completion,
    waiterCount: Int, duration: Duration?)
  /// The operation reported itself finished to its queue.
  func operationDidFinish(_ operation: Operation)
}
