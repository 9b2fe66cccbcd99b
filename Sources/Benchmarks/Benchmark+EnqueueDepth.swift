import Foundation
import OperationCore

extension Benchmark {
  /// `enqueue_depth`: the cost of one coalescing enqueue (a new key, so it does not join)
  /// with 10,000 distinct operations pending on a suspended queue, divided by the same cost on
  /// an empty queue (`ratio`). The baseline finds matches the way the manager must not: by a
  /// linear scan of `queue.operations` (`baseline_ratio`).
  ///
  /// Each enqueue is timed on its own; a run reports the median of 200 at depth 0 (the queue
  /// is drained after each, so every one sees an empty, already-used queue) and of 200 at
  /// depth 10,000 (depth grows to 10,200 while sampling). `ns_per_op` is the deep cost.
  enum EnqueueDepth {
    /// The target: a deep queue costs at most 1.5 times an empty one.
    static let targetRatio = 1.5

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let depth = scale.count(10_000)
      let samplesPerDepth = scale.quick ? 50 : 200
      let keys = Counter()
      var oursShallow: [Double] = []
      var baselineShallow: [Double] = []
      let samples = try await Statistics.interleave(
        "enqueue_depth", rounds: scale.rounds,
        ours: {
          let costs = try await ours(depth: depth, samples: samplesPerDepth, keys: keys)
          oursShallow.append(costs.shallow)
          return costs.deep
        },
        baseline: {
          let costs = try await baseline(depth: depth, samples: samplesPerDepth, keys: keys)
          baselineShallow.append(costs.shallow)
          return costs.deep
        })
      // The first run of each side is the warm-up.
      let shallow = Statistics.median(Array(oursShallow.dropFirst()))
      let baselineShallowMedian = Statistics.median(Array(baselineShallow.dropFirst()))
      let ratio = samples.oursMedian / shallow
      let baselineRatio = samples.baselineMedian / baselineShallowMedian
      return ScenarioResult(
        name: "enqueue_depth",
        nsPerOp: samples.oursMedian,
        baseline: "linear scan of queue.operations for the key, then addOperation",
        baselineNsPerOp: samples.baselineMedian,
        ratio: ratio,
        target: "ratio <= \(targetRatio) (depth \(depth) / depth 0)",
        met: ratio <= targetRatio,
        extras: [
          ("depth", .integer(depth)),
          ("depth0_ns", .number(shallow)),
          ("baseline_depth0_ns", .number(baselineShallowMedian)),
          ("baseline_ratio", .number(baselineRatio)),
        ],
        details:
          "depth 0: \(Report.duration(shallow)) (scan \(Report.duration(baselineShallowMedian))); "
          + String(format: "baseline_ratio %.1f", baselineRatio))
    }

    /// Our side: `manager.enqueue(_:completion:)` with a coalescing key.
    static func ours(
      depth: Int, samples: Int, keys: Counter
    ) async throws -> (shallow: Double, deep: Double) {
      let manager = OperationQueueManager(name: "bench.enqueue_depth.ours")
      func enqueue() -> Double {
        let operation = KeyedNoOp(key: nextKey(keys))
        let start = ContinuousClock.now
        manager.enqueue(operation) { _ in }
        return Statistics.nanoseconds(of: .now - start)
      }
      var shallow: [Double] = []
      for _ in 0...samples {  // One extra: the first enqueue on a fresh queue is not kept.
        manager.isSuspended = true
        shallow.append(enqueue())
        manager.isSuspended = false
        try await manager.waitUntilIdle()
      }
      manager.isSuspended = true
      for _ in 0..<depth {
        manager.enqueue(KeyedNoOp(key: nextKey(keys))) { _ in }
      }
      let deep = (0..<samples).map { _ in enqueue() }
      manager.cancelAllOperations()
      manager.isSuspended = false
      try await manager.waitUntilIdle()
      return (Statistics.median(Array(shallow.dropFirst())), Statistics.median(deep))
    }

    /// The baseline: the same operations, matched by scanning `queue.operations`.
    static func baseline(
      depth: Int, samples: Int, keys: Counter
    ) async throws -> (shallow: Double, deep: Double) {
      let queue = OperationQueue()
      queue.name = "bench.enqueue_depth.baseline"
      func enqueue() -> Double {
        let operation = KeyedNoOp(key: nextKey(keys))
        let start = ContinuousClock.now
        enqueueScanning(operation, on: queue) { _ in }
        return Statistics.nanoseconds(of: .now - start)
      }
      var shallow: [Double] = []
      for _ in 0...samples {
        queue.isSuspended = true
        shallow.append(enqueue())
        queue.isSuspended = false
        guard await poll(every: .microseconds(50), until: { queue.operationCount == 0 }) else {
          throw BenchmarkError.timedOut("draining the baseline queue")
        }
      }
      queue.isSuspended = true
      for _ in 0..<depth {
        enqueueScanning(KeyedNoOp(key: nextKey(keys)), on: queue) { _ in }
      }
      let deep = (0..<samples).map { _ in enqueue() }
      queue.cancelAllOperations()
      queue.isSuspended = false
      try await drain(queue)
      return (Statistics.median(Array(shallow.dropFirst())), Statistics.median(deep))
    }

    /// Coalescing without an index, as commonly written: join a pending or executing operation
    /// with the same key if the queue holds one, otherwise add this one.
    static func enqueueScanning(
      _ operation: KeyedNoOp, on queue: OperationQueue,
      completion: @escaping @Sendable (Result<Int, any Error>) -> Void
    ) {
      let match = queue.operations.first {
        ($0 as? KeyedNoOp)?.requestKey == operation.requestKey && !$0.isCancelled
          && !$0.isFinished
      }
      if let existing = match as? KeyedNoOp {
        existing.addCompletion(completion)
      } else {
        operation.addCompletion(completion)
        queue.addOperation(operation)
      }
    }

    private static func nextKey(_ keys: Counter) -> Int {
      keys.increment()
      return keys.value
    }
  }

  /// A no-op operation with a coalescing key, also exposed as a plain `Int` for the
  /// baseline's scan.
  final class KeyedNoOp: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
    // `requestKey` is immutable; the base class guards its own state with its lock.

    /// The request's key.
    let requestKey: Int

    /// Creates an operation for `key`.
    init(key: Int) {
      requestKey = key
      super.init(coalescingKey: key)
    }

    /// Finishes at once with the key.
    override func main() {
      finish(returning: requestKey)
    }
  }
}
