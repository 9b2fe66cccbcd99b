import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// `await_overhead`: 100,000 sequential `try await manager.perform(_:)` calls, against the
  /// same number of sequential awaits through a correct hand-written bridge
  /// (``HandWrittenBridge``: a `BlockOperation` whose `completionBlock` resumes a checked
  /// continuation, with a task cancellation handler that cancels it) on a raw `OperationQueue`:
  /// what a user writes to await operations without this library.
  ///
  /// One operation = one enqueue-run-resume round trip.
  ///
  /// The same run measures our await against the floor under any awaiting bridge, a checked
  /// continuation inside a task cancellation handler (that does nothing) around a
  /// `BlockOperation` whose block resumes it (`floor_ratio`: what this library adds to the bare
  /// primitives, which do no bookkeeping and let no cancelled caller go), and that floor against
  /// a chain of the same `BlockOperation`s (`await_primitive_ratio`: what awaiting itself costs,
  /// which no bridge can remove).
  enum AwaitOverhead {
    /// The target: no slower than the hand-written bridge.
    static let targetRatio = 1.0
    /// The target against the bare primitives (`floor_ratio`).
    static let floorTargetRatio = 1.25

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let count = scale.count(100_000)
      let samples = try await Statistics.interleave(
        "await_overhead", rounds: scale.rounds,
        ours: { try await ours(count: count) },
        baseline: { try await baseline(count: count) })
      let floor = try await Statistics.interleave(
        "await_overhead vs floor", rounds: scale.rounds,
        ours: { try await ours(count: count) },
        baseline: { try await floorAwaits(count: count) })
      let primitives = try await Statistics.interleave(
        "await_overhead floor vs chain", rounds: scale.rounds,
        ours: { try await floorAwaits(count: count) },
        baseline: { try await floorChain(count: count) })
      var result = ScenarioResult.ratio(
        "await_overhead", samples: samples,
        baseline: "hand-written bridge: BlockOperation + completionBlock + continuation",
        targetRatio: targetRatio,
        extras: [
          ("operations", .integer(count)),
          ("floor_ratio", .number(floor.ratio)),
          ("floor_target_ratio", .number(floorTargetRatio)),
          ("floor_ns_per_op", .number(floor.baselineMedian)),
          ("await_primitive_ratio", .number(primitives.ratio)),
          ("chain_ns_per_op", .number(primitives.baselineMedian)),
        ],
        details: "\(count) sequential awaits vs a hand-written bridge; "
          + "\(Report.ratio(floor.ratio)) the bare primitives (target "
          + "\(Report.ratio(floorTargetRatio))), which cost "
          + "\(Report.ratio(primitives.ratio)) a BlockOperation chain")
      result.target += ", floor_ratio <= \(floorTargetRatio)"
      result.met = result.met && floor.ratio <= floorTargetRatio
      return result
    }

    /// Our side: a loop of `try await manager.perform(_:)`.
    static func ours(count: Int) async throws -> Double {
      let manager = OperationQueueManager(name: "bench.await_overhead.ours")
      let elapsed = try await Statistics.nanoseconds {
        for _ in 0..<count {
          _ = try await manager.perform(NoOpOperation())
        }
      }
      try await manager.waitUntilIdle()
      return elapsed / Double(count)
    }

    /// `run_overhead`'s side: a loop of `try await manager.run { }` without a key, each closure
    /// returning at once.
    static func runs(count: Int) async throws -> Double {
      let manager = OperationQueueManager(name: "bench.await_overhead.runs")
      let elapsed = try await Statistics.nanoseconds {
        for index in 0..<count {
          _ = try await manager.run { index }
        }
      }
      try await manager.waitUntilIdle()
      return elapsed / Double(count)
    }

    /// The baseline: a loop of awaits through the hand-written bridge on a raw queue.
    static func baseline(count: Int) async throws -> Double {
      try await sequentialAwaits(count: count, queueName: "bench.await_overhead.baseline") {
        try await HandWrittenBridge.perform(on: $0)
      }
    }

    /// The floor's awaiting side: `count` sequential awaits of a bare checked continuation
    /// (``HandWrittenBridge/floor(on:)``) on a raw `OperationQueue`.
    static func floorAwaits(count: Int) async throws -> Double {
      try await sequentialAwaits(count: count, queueName: "bench.await_overhead.floor") {
        try await HandWrittenBridge.floor(on: $0)
      }
    }

    /// Times `count` sequential awaits of `step` on a new raw queue; returns nanoseconds each.
    private static func sequentialAwaits(
      count: Int, queueName: String, step: (OperationQueue) async throws -> Void
    ) async throws -> Double {
      let queue = OperationQueue()
      queue.name = queueName
      let elapsed = try await Statistics.nanoseconds {
        for _ in 0..<count {
          try await step(queue)
        }
      }
      try await drain(queue)
      return elapsed / Double(count)
    }

    /// The floor's baseline: a chain of `count` `BlockOperation`s on a raw `OperationQueue`,
    /// each block adding the next.
    static func floorChain(count: Int) async throws -> Double {
      let queue = OperationQueue()
      queue.name = "bench.await_overhead.floor.baseline"
      let countdown = Countdown(1)
      let chain = Chain.blockOperations(on: queue, length: count) { countdown.arrive() }
      let elapsed = await Statistics.nanoseconds {
        await countdown.wait { chain.start() }
      }
      try await drain(queue)
      return elapsed / Double(count)
    }
  }
}
