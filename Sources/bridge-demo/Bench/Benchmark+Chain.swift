import Foundation
import OperationCore
import Synchronization

extension Benchmark {
  /// Runs `length` links one after another, each started when the previous one ends, and calls
  /// `done` after the last: sequential work written without async/await.
  ///
  /// A link is whatever `link` starts. It must call ``next()`` when it ends, after reporting a
  /// failure through ``record(_:)`` if it had one.
  final class Chain: Sendable {
    private let remaining: Atomic<Int>
    private let link: @Sendable (Chain) -> Void
    private let done: @Sendable () -> Void
    private let firstFailure = Locked<String?>(nil)

    /// Creates a chain; nothing runs until ``start()``.
    init(
      length: Int, link: @escaping @Sendable (Chain) -> Void,
      done: @escaping @Sendable () -> Void
    ) {
      self.remaining = Atomic(length)
      self.link = link
      self.done = done
    }

    /// A chain of no-op operations through `manager`, each completion handler enqueueing the
    /// next operation.
    static func completionHandlers(
      on manager: OperationQueueManager, length: Int, done: @escaping @Sendable () -> Void
    ) -> Chain {
      Chain(
        length: length,
        link: { chain in
          manager.enqueue(NoOpOperation()) { result in
            if case .failure(let error) = result { chain.record(error) }
            chain.next()
          }
        }, done: done)
    }

    /// A chain of `BlockOperation`s on a raw `queue`, each block adding the next.
    static func blockOperations(
      on queue: OperationQueue, length: Int, done: @escaping @Sendable () -> Void
    ) -> Chain {
      Chain(
        length: length,
        link: { chain in
          queue.addOperation(BlockOperation { chain.next() })
        }, done: done)
    }

    /// The first failure a link reported, if any.
    var failure: String? { firstFailure.withLock { $0 } }

    /// Starts the first link.
    func start() {
      next()
    }

    /// Starts the next link, or calls `done` after the last one.
    func next() {
      guard remaining.subtract(1, ordering: .relaxed).newValue >= 0 else {
        done()
        return
      }
      link(self)
    }

    /// Records a link's failure; the first one is kept.
    func record(_ error: any Error) {
      firstFailure.withLock { $0 = $0 ?? String(describing: error) }
    }
  }
}
