import Foundation

/// Tells an adapter that its foreign operation has finished, whoever runs it, without touching
/// the operation's `completionBlock` (its owner's code may set or replace it).
///
/// The signal is an operation that depends on the foreign one, in a private queue never
/// suspended: Foundation makes a dependent ready once its dependency reports `isFinished`, on
/// both platforms. The queue keeps the signal until then (a dependency keeps no reference to it).
enum ForeignFinishSignal {
  private static let queue = OperationQueue()

  /// Calls `body` on the private queue once `operation` has finished (soon, if it has).
  static func whenFinished(_ operation: Operation, then body: @escaping @Sendable () -> Void) {
    let signal = BlockOperation(block: body)
    signal.addDependency(operation)
    queue.addOperation(signal)
  }
}
