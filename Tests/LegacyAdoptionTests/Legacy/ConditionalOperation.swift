import Foundation

// Legacy shape: operations in the "Advanced NSOperations" style (Apple's WWDC 2015 sample and its
// many descendants). An operation is not ready until its own queue enqueues it: the queue tells
// it, it evaluates its conditions, and it announces readiness through KVO.

/// A queue that tells each ``ConditionalOperation`` it is being enqueued.
final class ConditionalQueue: OperationQueue, @unchecked Sendable {
  override func addOperation(_ operation: Operation) {
    (operation as? ConditionalOperation)?.willEnqueue()
    super.addOperation(operation)
  }
}

/// An operation that becomes ready only once its own queue enqueued it and its conditions held.
class ConditionalOperation: Operation, @unchecked Sendable {
  private enum Stage {
    case initialized, evaluating, ready
  }

  // `stage` lives under `lock`.
  private let lock = NSLock()
  private var stage = Stage.initialized

  override var isReady: Bool {
    switch lock.withLock({ stage }) {
    case .initialized, .evaluating: false
    case .ready: super.isReady
    }
  }

  /// Called by ``ConditionalQueue``: evaluates the conditions (here, on another queue), then
  /// announces readiness.
  final func willEnqueue() {
    lock.withLock { stage = .evaluating }
    DispatchQueue.global().async { [self] in
      willChangeValue(forKey: "isReady")
      lock.withLock { stage = .ready }
      didChangeValue(forKey: "isReady")
    }
  }
}

/// Computes a number once its conditions held: the style in use, with its result beside it.
final class CountWordsOperation: ConditionalOperation, @unchecked Sendable {
  let text: String
  private let lock = NSLock()
  private var count: Int?

  init(text: String) {
    self.text = text
    super.init()
  }

  /// The number of words, once the operation has finished.
  var wordCount: Int? { lock.withLock { count } }

  override func main() {
    let words = text.split(separator: " ").count
    lock.withLock { count = words }
  }
}
