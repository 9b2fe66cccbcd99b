import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// `await_concurrent`: 1,000 concurrent tasks, each awaiting 100 operations one after
  /// another through `manager.perform(_:)`, against 1,000 concurrent tasks doing the same
  /// through a correct hand-written bridge (``HandWrittenBridge``) on a raw `OperationQueue`
  /// of the same (default) width.
  ///
  /// One operation = one of the 100,000 round trips (wall time ÷ 100,000).
  enum AwaitConcurrent {
    /// The target: no slower than the hand-written bridge under contention.
    static let targetRatio = 1.0

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let tasks = scale.count(1_000)
      let awaits = 100
      let samples = try await Statistics.interleave(
        "await_concurrent", rounds: scale.rounds,
        ours: { try await ours(tasks: tasks, awaits: awaits) },
        baseline: { try await baseline(tasks: tasks, awaits: awaits) })
      return ScenarioResult.ratio(
        "await_concurrent", samples: samples,
        baseline: "the same awaits through the hand-written bridge on a raw OperationQueue",
        targetRatio: targetRatio,
        extras: [("tasks", .integer(tasks)), ("awaits_per_task", .integer(awaits))],
        details: "\(tasks) tasks x \(awaits) awaits vs a hand-written bridge")
    }

    /// Our side: a task group of `tasks` children, each awaiting `awaits` operations in turn.
    static func ours(tasks: Int, awaits: Int) async throws -> Double {
      let manager = OperationQueueManager(name: "bench.await_concurrent.ours")
      let elapsed = try await concurrently(tasks: tasks) {
        for _ in 0..<awaits {
          _ = try await manager.perform(NoOpOperation())
        }
      }
      try await manager.waitUntilIdle()
      return elapsed / Double(tasks * awaits)
    }

    /// The baseline: the same shape through the hand-written bridge.
    static func baseline(tasks: Int, awaits: Int) async throws -> Double {
      let queue = OperationQueue()
      queue.name = "bench.await_concurrent.baseline"
      let elapsed = try await concurrently(tasks: tasks) {
        for _ in 0..<awaits {
          try await HandWrittenBridge.perform(on: queue)
        }
      }
      try await drain(queue)
      return elapsed / Double(tasks * awaits)
    }

    /// Times `tasks` children of one task group each running `body`, until all are done.
    private static func concurrently(
      tasks: Int, body: @escaping @Sendable () async throws -> Void
    ) async throws -> Double {
      try await Statistics.nanoseconds {
        try await withThrowingTaskGroup(of: Void.self) { group in
          for _ in 0..<tasks {
            group.addTask { try await body() }
          }
          try await group.waitForAll()
        }
      }
    }
  }
}
