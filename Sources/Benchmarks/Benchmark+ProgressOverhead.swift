import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// What shared progress costs one operation, as instruction counts (no wall-clock scenario):
  /// sequential `try await manager.perform(_:)` of an operation that reports its progress once
  /// before it finishes, without an observer and with one (`onProgress`). Against
  /// `await_overhead` (the same awaits of an operation that reports nothing), the difference is
  /// the cost of one report, and of one observer handed one value.
  enum ProgressOverhead {
    /// An operation that reports one unit of one done, then finishes at once with 1.
    final class ReportingOperation: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
      // No state of its own; the base class guards its state with its lock.

      /// Reports, then finishes.
      override func main() {
        reportProgress(completed: 1, total: 1)
        finish(returning: 1)
      }
    }

    /// `count` sequential awaits of a reporting operation, nobody observing.
    static func reported(count: Int) async throws {
      let manager = OperationQueueManager(name: "bench.progress.reported")
      for _ in 0..<count {
        _ = try await manager.perform(ReportingOperation())
      }
      try await manager.waitUntilIdle()
    }

    /// `count` sequential awaits of a reporting operation, each caller observing its progress.
    static func observed(count: Int) async throws {
      let manager = OperationQueueManager(name: "bench.progress.observed")
      for _ in 0..<count {
        _ = try await manager.perform(ReportingOperation(), onProgress: { _ in })
      }
      try await manager.waitUntilIdle()
    }
  }
}
