/// One caller waiting for an operation's outcome: an entry in the operation's flat waiter list.
package struct OperationWaiter<Value: Sendable, Failure: Error>: Sendable {
  /// Identifies the waiter so it can leave before the operation settles.
  package typealias ID = UInt64

  private let callbackQueue: CallbackQueue?
  private let deliver: @Sendable (OperationOutcome<Value, Failure>) -> Void

  /// Creates a waiter that receives the outcome on `callbackQueue`, or on the settling thread.
  package init(
    callbackQueue: CallbackQueue?,
    deliver: @escaping @Sendable (OperationOutcome<Value, Failure>) -> Void
  ) {
    self.callbackQueue = callbackQueue
    self.deliver = deliver
  }

  /// Hands `outcome` to the waiter. Call it outside any lock.
  package func resume(with outcome: OperationOutcome<Value, Failure>) {
    if let callbackQueue {
      let deliver = self.deliver
      callbackQueue.execute { deliver(outcome) }
    } else {
      deliver(outcome)
    }
  }
}
