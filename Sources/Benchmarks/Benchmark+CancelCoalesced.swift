import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// `cancel_coalesced`: N tasks, children of one parent task, all await ONE coalesced
  /// operation (`manager.perform(_:)` of operations with one key, pending on a suspended
  /// manager); the parent is cancelled, and the clock runs until every child has returned
  /// (each with `CancellationError`). Baseline: the same storm over N distinct operations
  /// (no key), pending on the same kind of manager.
  ///
  /// Points at N = 10,000, 30,000 and 100,000 (quick: 1,000, 3,000, 10,000), each with one
  /// warm-up pair and three measured pairs; the ratio of each point is the median of its
  /// paired ratios. The children are confirmed registered before the clock starts: distinct
  /// operations through `outstandingOperationCount`, the coalesced one through the waiter
  /// count of its `joined` events (a subscriber that is gone before the clock starts).
  enum CancelCoalesced {
    /// The target: at most 1.5 times the distinct-operations storm, at every point.
    static let targetRatio = 1.5
    /// Measured pairs per point.
    static let rounds = 3

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let points = [10_000, 30_000, 100_000].map(scale.count)
      var ratios: [Double] = []
      var coalescedMs: [Double] = []
      var distinctMs: [Double] = []
      var lastSamples = Statistics.Samples()
      for waiters in points {
        let samples = try await Statistics.interleave(
          "cancel_coalesced \(waiters)", rounds: rounds,
          ours: { try await storm(waiters: waiters, coalesced: true) / Double(waiters) },
          baseline: { try await storm(waiters: waiters, coalesced: false) / Double(waiters) })
        ratios.append(samples.ratio)
        coalescedMs.append(samples.oursMedian * Double(waiters) / 1e6)
        distinctMs.append(samples.baselineMedian * Double(waiters) / 1e6)
        lastSamples = samples
      }
      var extras: [(key: String, value: JSONValue)] = [
        ("points", .array(points.map(JSONValue.integer)))
      ]
      var details: [String] = []
      for (index, waiters) in points.enumerated() {
        extras.append(("ratio_\(waiters)", .number(ratios[index])))
        extras.append(("coalesced_ms_\(waiters)", .number(coalescedMs[index])))
        extras.append(("distinct_ms_\(waiters)", .number(distinctMs[index])))
        details.append(
          String(
            format: "%d: %.1f ms vs %.1f ms (%.2f)", waiters, coalescedMs[index],
            distinctMs[index], ratios[index]))
      }
      return ScenarioResult(
        name: "cancel_coalesced",
        nsPerOp: lastSamples.oursMedian,
        baseline: "the same cancellation storm over N distinct operations",
        baselineNsPerOp: lastSamples.baselineMedian,
        ratio: ratios.last,
        target: "ratio <= \(targetRatio) at each N",
        met: ratios.allSatisfy { $0 <= targetRatio },
        extras: extras,
        details: "N waiters cancelled via their parent, coalesced vs distinct: "
          + details.joined(separator: "; "))
    }

    /// One storm: returns nanoseconds from cancelling the parent until every child returned.
    static func storm(waiters: Int, coalesced: Bool) async throws -> Double {
      let manager = OperationQueueManager(name: "bench.cancel_coalesced")
      manager.isSuspended = true
      let joined = Counter()
      // Only the coalesced storm needs events to confirm its waiters.
      let events = coalesced ? manager.makeEvents() : nil
      let subscriber = Task {
        guard let events else { return }
        for await event in events where event.kind == .joined {
          joined.raise(to: event.callerCount)
        }
      }
      let cancelled = Counter()
      let parent = Task {
        await withTaskGroup(of: Void.self) { group in
          for _ in 0..<waiters {
            group.addTask {
              do {
                let operation =
                  coalesced ? WaitForCancellation(coalescingKey: "storm") : WaitForCancellation()
                _ = try await manager.perform(operation)
              } catch is CancellationError {
                cancelled.increment()
              } catch {
                // Any other outcome leaves `cancelled` short, which fails the round.
              }
            }
          }
          await group.waitForAll()
        }
      }
      let registered = await poll(timeout: .seconds(60)) {
        coalesced
          ? manager.outstandingOperationCount == 1 && joined.value >= waiters
          : manager.outstandingOperationCount == waiters
      }
      subscriber.cancel()
      await subscriber.value
      guard registered else {
        parent.cancel()
        throw BenchmarkError.timedOut("waiting for \(waiters) waiters to register")
      }
      try await Task.sleep(for: .milliseconds(5))  // Let the last registrations settle.
      let start = ContinuousClock.now
      parent.cancel()
      await parent.value
      let elapsed = Statistics.nanoseconds(of: .now - start)
      manager.isSuspended = false
      try await manager.waitUntilIdle()
      guard cancelled.value == waiters else {
        throw BenchmarkError.failed(
          "cancel_coalesced: \(waiters - cancelled.value) of \(waiters) waiters not cancelled")
      }
      return elapsed
    }
  }
}
