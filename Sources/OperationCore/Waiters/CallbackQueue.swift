import Dispatch
import Foundation

/// Where a waiter's callback runs.
///
/// Every waiter of an operation picks its own callback queue, so one caller can be called on
/// the main queue while another, joined to the same coalesced work, is called on a background
/// queue. A waiter without a callback queue is called on the thread that settles the operation.
/// Written in place, `callbackQueue: .dispatch(.main)` is a ``MainActorCallbackQueue``, and the
/// `enqueue` overloads that take one type their handlers `@MainActor`.
public enum CallbackQueue: Sendable {
  /// Call the waiter asynchronously on a dispatch queue.
  case dispatch(DispatchQueue)
  /// Call the waiter in an operation added to an operation queue. That operation ignores
  /// `cancel()`, so cancelling the queue's operations never loses a callback.
  case operation(OperationQueue)

  /// Runs `body` on this queue, asynchronously, as the layer calls a waiter's callback: a
  /// data manager that fails a request before admitting it (an invalid query, say) calls its
  /// caller's completion handler this way, where the caller asked to be called.
  ///
  /// - Parameter body: The work; on `.operation(_:)`, it runs even when the queue's operations
  ///   are cancelled.
  public func execute(_ body: @escaping @Sendable () -> Void) {
    switch self {
    case .dispatch(let queue):
      queue.async(execute: body)
    case .operation(let queue):
      queue.addOperation(CallbackOperation(body))
    }
  }
}
