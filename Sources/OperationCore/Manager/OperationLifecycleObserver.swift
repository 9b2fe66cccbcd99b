import Foundation

/// Receives an operation's lifecycle from the operation itself. ``OperationQueueManager``
/// implements it to keep its coalescing index, its count of outstanding operations and its
/// event stream.
protocol OperationLifecycleObserver: AnyObject, Sendable {
  /// Publishes one of the operation's lifecycle events. Called under the operation's lock,
  /// which keeps one operation's events in the order they were decided: it must only hand the
  /// event to subscribers' buffers, never call back into the operation.
  func publish(
    _ event: OperationStateMachine.LifecycleEvent, of operation: Operation, key: CoalescingKey?)
  /// Publishes a `retrying` event for the operation, under its lock like ``publish(_:of:key:)``.
  func publishRetry(
    of operation: Operation, key: CoalescingKey?, attempt: Int, delay: Duration, failure: String,
    audience: UInt64)
  /// The operation's outcome is fixed; outside the operation's lock.
  func operationDidSettle(_ operation: Operation, key: CoalescingKey?)
  /// The operation reported itself finished to its queue; outside the operation's lock.
  func operationDidFinish(_ operation: Operation)
  /// How long an operation may execute before a `stalled` event reports it; nil for never.
  var stallThreshold: Duration? { get }
}
