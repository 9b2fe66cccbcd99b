import Foundation
import Synchronization

extension Benchmark {
  /// Runs `length` links one after another, each started when the previous one ends, and calls
  /// `done` after the last: sequential work written without async/await.
  ///
  /// A link is whatever `link` starts. It must call ``next()`` when it ends.
  final class Chain: Sendable {
    private let remaining: Atomic<Int>
    private let link: @Sendable (Chain) -> Void
    private let done: @Sendable () -> Void

    /// Creates a chain; nothing runs until ``start()``.
    init(
      length: Int, link: @escaping @Sendable (Chain) -> Void,
      done: @escaping @Sendable () -> Void
    ) {
      self.remaining = Atomic(length)
      self.link = link
      self.done = done
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
  }
}
