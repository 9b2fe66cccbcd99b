import Foundation
import OperationCore

extension Benchmark {
  /// `throughput`: 100,000 no-op operations with completion handlers through an
  /// `OperationQueueManager`, against the same number of `BlockOperation`s on a raw
  /// `OperationQueue` whose blocks do the same counting. Both queues have the default width.
  ///
  /// One operation = enqueue plus run plus completion, averaged over the whole batch
  /// (from the first enqueue to the last completion).
  enum Throughput {
    /// The target: at most 15% slower than raw `BlockOperation`s.
    static let targetRatio = 1.15

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let count = scale.count(100_000)
      let samples = try await Statistics.interleave(
        "throughput", rounds: scale.rounds,
        ours: { try await ours(count: count) },
        baseline: { try await baseline(count: count) })
      return ScenarioResult.ratio(
        "throughput", samples: samples,
        baseline: "BlockOperation on a raw OperationQueue, counting in the block",
        targetRatio: targetRatio,
        extras: [("operations", .integer(count))],
        details: "\(count) ops")
    }

    /// Our side: `manager.enqueue(_:completion:)` of no-op operations (on a new manager
    /// unless one is given).
    static func ours(
      count: Int,
      on manager: OperationQueueManager = OperationQueueManager(name: "bench.throughput.ours")
    ) async throws -> Double {
      let countdown = Countdown(count)
      let elapsed = await Statistics.nanoseconds {
        await countdown.wait {
          for _ in 0..<count {
            manager.enqueue(NoOpOperation()) { _ in countdown.arrive() }
          }
        }
      }
      try await manager.waitUntilIdle()
      return elapsed / Double(count)
    }

    /// The baseline: what a user writes without the manager.
    static func baseline(count: Int) async throws -> Double {
      let queue = OperationQueue()
      queue.name = "bench.throughput.baseline"
      let countdown = Countdown(count)
      let elapsed = await Statistics.nanoseconds {
        await countdown.wait {
          for _ in 0..<count {
            queue.addOperation(BlockOperation { countdown.arrive() })
          }
        }
      }
      try await drain(queue)
      return elapsed / Double(count)
    }
  }
}
