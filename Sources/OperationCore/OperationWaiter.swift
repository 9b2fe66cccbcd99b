/// One caller waiting for an operation's outcome: an entry in the operation's flat waiter list.
///
/// The common callers (a completion handler taking an untyped result, an awaiting task's
/// continuation) are stored as they are, so registering them allocates no wrapper closure.
package struct OperationWaiter<Value: Sendable, Failure: Error>: Sendable {
  /// Identifies the waiter so it can leave before the operation settles.
  package typealias ID = UInt64

  private enum Delivery: Sendable {
    case outcome(@Sendable (OperationOutcome<Value, Failure>) -> Void)
    case untypedResult(@Sendable (Result<Value, any Error>) -> Void)
    case continuation(CheckedContinuation<OperationOutcome<Value, Failure>, Never>)
  }

  private let callbackQueue: CallbackQueue?
  private let delivery: Delivery

  /// Creates a waiter that receives the outcome on `callbackQueue`, or on the settling thread.
  package init(
    callbackQueue: CallbackQueue?,
    deliver: @escaping @Sendable (OperationOutcome<Value, Failure>) -> Void
  ) {
    self.callbackQueue = callbackQueue
    self.delivery = .outcome(deliver)
  }

  /// Creates a waiter that receives the untyped result (`CancellationError` for cancellation).
  package init(
    callbackQueue: CallbackQueue?,
    untypedResult handler: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) {
    self.callbackQueue = callbackQueue
    self.delivery = .untypedResult(handler)
  }

  /// Creates a waiter that resumes an awaiting task, on the settling thread.
  package init(continuation: CheckedContinuation<OperationOutcome<Value, Failure>, Never>) {
    self.callbackQueue = nil
    self.delivery = .continuation(continuation)
  }

  /// Hands `outcome` to the waiter. Call it outside any lock.
  @inline(__always)

  package func resume(with outcome: OperationOutcome<Value, Failure>) {
    if let callbackQueue {
      callbackQueue.execute { [delivery] in Self.deliver(outcome, to: delivery) }
    } else {
      Self.deliver(outcome, to: delivery)
    }
  }

  @inline(__always)

  private static func deliver(_ outcome: OperationOutcome<Value, Failure>, to delivery: Delivery) {
    switch delivery {
    case .outcome(let deliver): deliver(outcome)
    case .untypedResult(let handler): handler(outcome.untypedResult)
    case .continuation(let continuation): continuation.resume(returning: outcome)
    }
  }
}
