import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// `events_overhead`: `throughput`'s 100,000 no-op operations with completion handlers
  /// through a manager that has one `makeEvents()` subscriber (a task draining the stream with
  /// the default buffer), against the same through a manager with none.
  ///
  /// Also reports the fraction of the operations' `enqueued`, `started` and `finished` events
  /// that reached the subscriber (`received_fraction`, median over rounds; the stream drops
  /// the oldest unread events when its buffer is full). The subscriber is given up to a second
  /// after the last completion to drain its buffer.
  enum EventsOverhead {
    /// The target: a subscriber costs at most 15%.
    static let targetRatio = 1.15

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let count = scale.count(100_000)
      var fractions: [Double] = []
      let samples = try await Statistics.interleave(
        "events_overhead", rounds: scale.rounds,
        ours: {
          let (nanoseconds, fraction) = try await subscribed(count: count)
          fractions.append(fraction)
          return nanoseconds
        },
        baseline: { try await Throughput.ours(count: count) })
      let fraction = Statistics.median(Array(fractions.dropFirst()))
      return ScenarioResult.ratio(
        "events_overhead", samples: samples,
        baseline: "the same operations through a manager without a subscriber",
        targetRatio: targetRatio,
        extras: [("operations", .integer(count)), ("received_fraction", .number(fraction))],
        details: String(
          format: "%d ops, one subscriber; it received %.0f%% of their events", count,
          fraction * 100))
    }

    /// Our side: `throughput`'s run with a subscriber. Returns nanoseconds per operation and
    /// the fraction of lifecycle events the subscriber received.
    static func subscribed(count: Int) async throws -> (nanoseconds: Double, fraction: Double) {
      let manager = OperationQueueManager(name: "bench.events_overhead.subscribed")
      let received = Counter()
      let events = manager.makeEvents()
      let subscriber = Task {
        for await event in events {
          switch event.kind {
          case .enqueued, .started, .finished: received.increment()
          default: break
          }
        }
      }
      let nanoseconds = try await Throughput.ours(count: count, on: manager)
      let expected = 3 * count
      var last = -1
      _ = await poll(every: .milliseconds(10), timeout: .seconds(1)) {
        defer { last = received.value }
        return received.value >= expected || received.value == last
      }
      subscriber.cancel()
      await subscriber.value
      return (nanoseconds, Double(received.value) / Double(expected))
    }
  }
}
