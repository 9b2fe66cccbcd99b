import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// `run_overhead`: 100,000 sequential `try await manager.run { }` calls without a key, each
  /// closure returning at once, against the same number of sequential `perform`s of a no-op
  /// operation (`await_overhead`'s side): what running a closure costs beyond awaiting an
  /// operation (the closure's task, made in the caller's context).
  enum RunOverhead {
    /// The target: a run costs at most this much more than a `perform`.
    static let targetRatio = 1.1

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let count = scale.count(100_000)
      let samples = try await Statistics.interleave(
        "run_overhead", rounds: scale.rounds,
        ours: { try await AwaitOverhead.runs(count: count) },
        baseline: { try await AwaitOverhead.ours(count: count) })
      return ScenarioResult.ratio(
        "run_overhead", samples: samples,
        baseline: "sequential perform of a no-op operation (await_overhead's side)",
        targetRatio: targetRatio,
        extras: [("operations", .integer(count))],
        details: "\(count) sequential runs vs as many performs")
    }
  }
}
