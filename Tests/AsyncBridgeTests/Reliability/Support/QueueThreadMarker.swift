import Dispatch
import Foundation
import LockedValue
import OperationCore

/// Tells whether the calling thread is running a block of one manager's `OperationQueue`.
///
/// The queue is given `dispatchQueue` as its `underlyingQueue`, and that dispatch queue carries
/// a specific value under a key of its own. swift-corelibs-foundation runs every operation's
/// `start()` in a block on the underlying queue, and reads the operation's `isFinished` on that
/// same block right after `start()` returns, whatever `start()` did. So an operation that the
/// queue has started has always had a getter called on a marked thread, and an operation the
/// queue never started never has (test operations touch no other operation from their work).
final class QueueThreadMarker: @unchecked Sendable {
  // Immutable after init: the key is only read, and DispatchSpecificKey is not Sendable.
  private let key = DispatchSpecificKey<Bool>()

  /// The dispatch queue the manager's operation queue runs its blocks on. An operation queue
  /// does not retain its underlying queue: the marker keeps it alive.
  let dispatchQueue: DispatchQueue

  init(label: String) {
    dispatchQueue = DispatchQueue(label: label, attributes: .concurrent)
    dispatchQueue.setSpecific(key: key, value: true)
  }

  /// Whether the calling thread runs a block of ``dispatchQueue``.
  var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

  /// A manager whose queue runs on ``dispatchQueue``. Keep the marker alive for as long as
  /// the manager's queue may run anything.
  func makeManager(name: String, maxConcurrentOperationCount: Int) -> OperationQueueManager {
    let queue = OperationQueue()
    queue.name = name
    queue.maxConcurrentOperationCount = maxConcurrentOperationCount
    queue.underlyingQueue = dispatchQueue
    return OperationQueueManager(queue: queue)
  }
}

/// Keeps the dispatch queues of rounds whose operation queue was not freed: an operation
/// queue does not retain its underlying queue, and must never outlive it.
let leakedRoundMarkers = Locked<[QueueThreadMarker]>([])
