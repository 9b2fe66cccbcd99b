import Foundation

/// Runs one waiter's callback on an operation queue (``CallbackQueue/operation(_:)``). It
/// ignores `cancel()`: a callback is a delivery, not work, and a waiter is called exactly once,
/// so cancelling the queue's operations (`cancelAllOperations()`, the manager's own included
/// when its queue is the callback queue) must not lose it.
final class CallbackOperation: Operation, @unchecked Sendable {
  // Immutable after init.
  private let body: @Sendable () -> Void

  /// An operation that calls `body` when its queue runs it.
  init(_ body: @escaping @Sendable () -> Void) {
    self.body = body
    super.init()
  }

  /// Calls the callback.
  override func main() { body() }

  /// Does nothing: the callback runs whatever happens to the queue's other operations.
  override func cancel() {}
}
