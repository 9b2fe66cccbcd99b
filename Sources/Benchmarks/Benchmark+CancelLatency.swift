import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// `cancel_latency`: 1,000 tasks await operations that never finish on their own, on a
  /// manager 64 wide (so 64 are executing and the rest pending). Once all are waiting, every
  /// task is cancelled in turn; the latency runs from `Task.cancel()` to the task resuming
  /// with `CancellationError`. Afterwards every operation must have finished and the queue
  /// must be empty (`clean`).
  ///
  /// Each round gives a p50 and a p99; the report gives the median of each over the measured
  /// rounds, and `cancel_all_us`, how long the loop calling `cancel()` on every task took (the
  /// cancelling task does all of that work itself, since cancellation handlers run inline).
  /// There is no baseline.
  enum CancelLatency {
    /// The target for the median, in microseconds.
    static let targetP50Microseconds = 25.0
    /// The target for the 99th percentile, in microseconds.
    static let targetP99Microseconds = 100.0
    /// The manager's width: how many of the operations execute while the rest are pending.
    static let width = 64

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let tasks = scale.count(1_000)
      var p50s: [Double] = []
      var p99s: [Double] = []
      var loops: [Double] = []
      var clean = true
      var allCancelled = true
      for round in 0...scale.rounds {
        let outcome = try await measure(tasks: tasks)
        let p50 = Statistics.percentile(outcome.latencies, 0.50)
        let p99 = Statistics.percentile(outcome.latencies, 0.99)
        clean = clean && outcome.clean
        allCancelled = allCancelled && outcome.allCancelled
        let label = round == 0 ? "warm-up" : "round \(round)/\(scale.rounds)"
        log(
          "  cancel_latency \(label): p50 \(Report.duration(p50)), p99 \(Report.duration(p99)), "
            + "cancelling all took \(Report.duration(outcome.loop)), "
            + "clean \(outcome.clean), all cancelled \(outcome.allCancelled)")
        if round > 0 {
          p50s.append(p50)
          p99s.append(p99)
          loops.append(outcome.loop)
        }
      }
      let p50 = Statistics.median(p50s)
      let p99Microseconds = Statistics.median(p99s) / 1e3
      return ScenarioResult(
        name: "cancel_latency",
        nsPerOp: p50,
        baseline: "none",
        target:
          "p50_us <= \(Int(targetP50Microseconds)), p99_us <= \(Int(targetP99Microseconds)), "
          + "clean",
        met: p50 / 1e3 <= targetP50Microseconds && p99Microseconds <= targetP99Microseconds
          && clean && allCancelled,
        extras: [
          ("tasks", .integer(tasks)),
          ("width", .integer(width)),
          ("p50_us", .number(p50 / 1e3)),
          ("p99_us", .number(p99Microseconds)),
          ("cancel_all_us", .number(Statistics.median(loops) / 1e3)),
          ("all_cancelled", .bool(allCancelled)),
          ("clean", .bool(clean)),
        ],
        details: String(
          format: "p50 %.1f µs, p99 %.1f µs; %d tasks; ", p50 / 1e3, p99Microseconds, tasks)
          + "clean \(clean && allCancelled ? "yes" : "NO")")
    }

    /// One round: returns each task's latency in nanoseconds, whether every task resumed with
    /// `CancellationError`, and whether everything finished and the queue emptied afterwards.
    static func measure(
      tasks: Int
    ) async throws -> (latencies: [Double], loop: Double, allCancelled: Bool, clean: Bool) {
      let manager = OperationQueueManager(
        name: "bench.cancel_latency", maxConcurrentOperationCount: width)
      let operations = (0..<tasks).map { _ in WaitForCancellation() }
      let handles = operations.map { operation in
        Task { () -> (resumed: ContinuousClock.Instant, cancelled: Bool) in
          do {
            _ = try await manager.perform(operation)
            return (.now, false)
          } catch {
            let resumed = ContinuousClock.Instant.now
            return (resumed, error is CancellationError)
          }
        }
      }
      let executing = min(width, tasks)
      let ready = await poll {
        manager.outstandingOperationCount == tasks
          && operations.lazy.filter(\.isExecuting).count == executing
      }
      guard ready else { throw BenchmarkError.timedOut("waiting for \(tasks) awaiting tasks") }
      try await Task.sleep(for: .milliseconds(5))  // Let every registration settle.

      var cancelledAt: [ContinuousClock.Instant] = []
      cancelledAt.reserveCapacity(tasks)
      for handle in handles {
        cancelledAt.append(.now)
        handle.cancel()
      }
      let loop = Statistics.nanoseconds(of: .now - cancelledAt[0])
      var latencies: [Double] = []
      var allCancelled = true
      for (handle, start) in zip(handles, cancelledAt) {
        let (resumed, cancelled) = await handle.value
        latencies.append(Statistics.nanoseconds(of: resumed - start))
        allCancelled = allCancelled && cancelled
      }

      let clean = await poll(timeout: .seconds(5)) {
        manager.isIdle && manager.queue.operationCount == 0
          && operations.allSatisfy(\.isFinished)
      }
      return (latencies, loop, allCancelled, clean)
    }
  }

  /// An operation that never finishes on its own: it ends only when cancelled.
  final class WaitForCancellation: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
    // No state of its own; the base class guards its state with its lock.

    /// Does nothing: the operation stays executing until it is cancelled.
    override func main() {}
  }
}
