/// One caller waiting for an operation's outcome: an entry in the operation's flat waiter list.
///
/// Not generic: it receives the type-erased outcome, so storing, moving and resuming waiters
/// needs no generic metadata. An awaiting task's continuation is stored as it is, with no
/// wrapper closure.
package struct OperationWaiter: Sendable {
  /// Identifies the waiter so it can leave before the operation settles.
  package typealias ID = UInt64

  private enum Delivery: Sendable {
    case handler(@Sendable (ErasedOutcome) -> Void)
    case continuation(CheckedContinuation<ErasedOutcome, Never>)
  }

  private let callbackQueue: CallbackQueue?
  private let delivery: Delivery

  /// Creates a waiter that receives the outcome on `callbackQueue`, or on the settling thread.
  package init(
    callbackQueue: CallbackQueue?, deliver: @escaping @Sendable (ErasedOutcome) -> Void
  ) {
    self.callbackQueue = callbackQueue
    self.delivery = .handler(deliver)
  }

  /// Creates a waiter that resumes an awaiting task, on the settling thread.
  package init(continuation: CheckedContinuation<ErasedOutcome, Never>) {
    self.callbackQueue = nil
    self.delivery = .continuation(continuation)
  }

  /// Hands `outcome` to the waiter. Call it outside any lock.
  package func resume(with outcome: ErasedOutcome) {
    if let callbackQueue {
      callbackQueue.execute { [delivery] in Self.deliver(outcome, to: delivery) }
    } else {
      Self.deliver(outcome, to: delivery)
    }
  }

  private static func deliver(_ outcome: ErasedOutcome, to delivery: Delivery) {
    switch delivery {
    case .handler(let deliver): deliver(outcome)
    case .continuation(let continuation): continuation.resume(returning: outcome)
    }
  }
}
