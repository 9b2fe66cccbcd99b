import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// `await_concurrent`: 1,000 concurrent tasks, each awaiting 100 operations one after
  /// another through `manager.perform(_:)`, against 1,000 concurrent completion-handler chains
  /// of 100 operations each on the same kind of manager.
  ///
  /// One operation = one of the 100,000 round trips (wall time ÷ 100,000).
  enum AwaitConcurrent {
    /// The target: `await` costs at most 30% more than completion handlers under contention.
    static let targetRatio = 1.30

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let tasks = scale.count(1_000)
      let awaits = 100
      let samples = try await Statistics.interleave(
        "await_concurrent", rounds: scale.rounds,
        ours: { try await ours(tasks: tasks, awaits: awaits) },
        baseline: { try await baseline(chains: tasks, length: awaits) })
      return ScenarioResult(
        name: "await_concurrent",
        nsPerOp: samples.oursMedian,
        baseline: "same operations, concurrent completion-handler chains on the same manager",
        baselineNsPerOp: samples.baselineMedian,
        ratio: samples.ratio,
        target: "ratio <= \(targetRatio)",
        met: samples.ratio <= targetRatio,
        extras: [("tasks", .integer(tasks)), ("awaits_per_task", .integer(awaits))],
        details: "\(tasks) tasks x \(awaits) awaits")
    }

    /// Our side: a task group of `tasks` children, each awaiting `awaits` operations in turn.
    static func ours(tasks: Int, awaits: Int) async throws -> Double {
      let manager = OperationQueueManager(name: "bench.await_concurrent.ours")
      let elapsed = try await Statistics.nanoseconds {
        try await withThrowingTaskGroup(of: Void.self) { group in
          for _ in 0..<tasks {
            group.addTask {
              for _ in 0..<awaits {
                _ = try await manager.perform(NoOpOperation())
              }
            }
          }
          try await group.waitForAll()
        }
      }
      try await manager.waitUntilIdle()
      return elapsed / Double(tasks * awaits)
    }

    /// The baseline: `chains` completion-handler chains started together.
    static func baseline(chains: Int, length: Int) async throws -> Double {
      let manager = OperationQueueManager(name: "bench.await_concurrent.baseline")
      let countdown = Countdown(chains)
      var all: [Chain] = []
      all.reserveCapacity(chains)
      let elapsed = await Statistics.nanoseconds {
        await countdown.wait {
          for _ in 0..<chains {
            let chain = Chain.completionHandlers(on: manager, length: length) {
              countdown.arrive()
            }
            all.append(chain)
            chain.start()
          }
        }
      }
      try await manager.waitUntilIdle()
      if let failure = all.lazy.compactMap(\.failure).first {
        throw BenchmarkError.failed("chain failed: \(failure)")
      }
      return elapsed / Double(chains * length)
    }
  }
}
