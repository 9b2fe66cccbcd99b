import Foundation

/// Tells an adapter that its foreign operation has finished, whoever runs it, without reading
/// or setting the operation's `completionBlock` (its owner's code sets it, and may replace it
/// while the operation runs).
///
/// The signal is an operation that depends on the foreign one, in a private queue that is
/// never suspended: Foundation makes a dependent ready once its dependency reports
/// `isFinished`, on both platforms, and the queue then runs it. Until then the queue keeps the
/// signal (a dependency keeps only an unretained pointer to its dependents): one that waits for
/// an operation which never finishes stays, like that operation.
enum ForeignFinishSignal {
  private static let queue: OperationQueue = {
    let queue = OperationQueue()
    queue.name = "OperationBridge.ForeignFinishSignal"
    return queue
  }()

  /// Calls `body` on the private queue once `operation` has finished (soon, if it has).
  static func whenFinished(_ operation: Operation, then body: @escaping @Sendable () -> Void) {
    let signal = BlockOperation(block: body)
    signal.addDependency(operation)
    queue.addOperation(signal)
  }
}
