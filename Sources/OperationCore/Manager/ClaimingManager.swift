import Foundation

/// The manager that claimed an operation, as the operation sees it: it receives the operation's
/// lifecycle from the operation itself. ``OperationQueueManager`` implements it to keep its coalescing index and its count of outstanding operations. (Events
/// go from the operation straight to its ``EventAudience``.)
protocol ClaimingManager: AnyObject, Sendable {
  /// The operation's outcome is fixed; outside the operation's lock.
  func operationDidSettle(_ operation: Operation, key: CoalescingKey?)
  /// The operation reported itself finished to its queue; outside the operation's lock.
  func operationDidFinish(_ operation: Operation)
  /// How long an operation may execute before a `stalled` event reports it; nil for never.
  var stallThreshold: Duration? { get }
  /// Fires the operation's timers (its timeout, its stall report) on the manager's clock.
  var scheduler: Scheduler { get }
}
