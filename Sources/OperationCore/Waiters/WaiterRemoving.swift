import Foundation

/// What a caller waits on, seen without its generic parameters: an operation, or a manager
/// for an idle wait. A suspension point holds one to make its waiter leave, without an
/// allocation (a closure capturing the operation would be one per await).
@usableFromInline
package protocol WaiterRemoving: AnyObject, Sendable {
  /// Removes the waiter `id` and hands it `outcome` (for an operation, then cancels it if that
  /// was its last caller); false when the waiter had already been taken to be resumed.
  @discardableResult
  func removeWaiter(_ id: OperationWaiter.ID, resumingWith outcome: ErasedOutcome) -> Bool

  /// The caller of waiter `id` was escalated to `priority` (its task's priority rose): what it
  /// waits on asks its queue for that much, if it is work that waits in one.
  func escalateWaiter(_ id: OperationWaiter.ID, to priority: Operation.QueuePriority)
}

extension ConcurrentOperation: WaiterRemoving {}
