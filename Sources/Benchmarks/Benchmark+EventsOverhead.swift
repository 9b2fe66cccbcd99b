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
  ///
  /// A third side is what a user writes instead of subscribing: the run without a subscriber,
  /// the same three events per operation yielded into an `AsyncStream` of the same capacity
  /// (dropping the oldest unread events too) that a task reads (``streamed(count:)``).
  /// `stream_ratio` is the subscribed side against it (paired, median over rounds), and
  /// `stream_received_fraction` the share of its events its reader got.
  enum EventsOverhead {
    /// The target: a subscriber costs at most 15%.
    static let targetRatio = 1.15

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let count = scale.count(100_000)
      var fractions: [Double] = []
      var streamFractions: [Double] = []
      let sides = try await Statistics.rotate(
        "events_overhead", rounds: scale.rounds,
        sides: [
          (
            "ours",
            {
              let (nanoseconds, fraction) = try await subscribed(count: count)
              fractions.append(fraction)
              return nanoseconds
            }
          ),
          ("baseline", { try await Throughput.ours(count: count) }),
          (
            "stream",
            {
              let (nanoseconds, fraction) = try await streamed(count: count)
              streamFractions.append(fraction)
              return nanoseconds
            }
          ),
        ])
      let samples = Statistics.Samples(ours: sides[0], baseline: sides[1])
      let streamRatio = Statistics.pairedRatio(sides[0], sides[2])
      // The warm-up round's fractions are left out, as its timings are.
      let fraction = Statistics.median(Array(fractions.dropFirst()))
      let streamFraction = Statistics.median(Array(streamFractions.dropFirst()))
      return ScenarioResult.ratio(
        "events_overhead", samples: samples,
        baseline: "the same operations through a manager without a subscriber",
        targetRatio: targetRatio,
        extras: [
          ("operations", .integer(count)), ("received_fraction", .number(fraction)),
          ("stream_ns_per_op", .number(Statistics.median(sides[2]))),
          ("stream_ratio", .number(streamRatio)),
          ("stream_received_fraction", .number(streamFraction)),
        ],
        details: String(
          format: "%d ops, one subscriber; it received %.0f%% of their events; "
            + "%.2f× an AsyncStream of the same events (its reader received %.0f%%)", count,
          fraction * 100, streamRatio, streamFraction * 100))
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

    /// The `AsyncStream` side: the run without a subscriber, each operation's `enqueued`,
    /// `started` and `finished` yielded into an `AsyncStream` with the subscriber's buffer
    /// (the newest 1,024 unread events kept) and read by a task, as a user would add events to
    /// a manager that has none. Returns nanoseconds per operation and the fraction of the
    /// events the reader received, given the same second to drain.
    static func streamed(count: Int) async throws -> (nanoseconds: Double, fraction: Double) {
      let manager = OperationQueueManager(name: "bench.events_overhead.stream")
      let (events, continuation) = AsyncStream.makeStream(
        of: StreamedEvent.self, bufferingPolicy: .bufferingNewest(1_024))
      let received = Counter()
      let reader = Task {
        for await event in events {
          switch event.kind {
          case .enqueued, .started, .finished: received.increment()
          }
        }
      }
      let countdown = Countdown(count)
      let nanoseconds =
        await Statistics.nanoseconds {
          await countdown.wait {
            for _ in 0..<count {
              let operation = StreamedNoOpOperation(events: continuation)
              let identity = ObjectIdentifier(operation)
              manager.enqueue(operation) { _ in
                continuation.yield(StreamedEvent(kind: .finished, operation: identity))
                countdown.arrive()
              }
              continuation.yield(StreamedEvent(kind: .enqueued, operation: identity))
            }
          }
        } / Double(count)
      try await manager.waitUntilIdle()
      let expected = 3 * count
      var last = -1
      _ = await poll(every: .milliseconds(10), timeout: .seconds(1)) {
        defer { last = received.value }
        return received.value >= expected || received.value == last
      }
      continuation.finish()
      reader.cancel()
      await reader.value
      return (nanoseconds, Double(received.value) / Double(expected))
    }
  }

  /// One lifecycle event of the `AsyncStream` side of `events_overhead`: what happened, to
  /// which operation.
  struct StreamedEvent: Sendable {
    /// The three events both sides deliver.
    enum Kind: Sendable { case enqueued, started, finished }
    /// What happened.
    let kind: Kind
    /// The operation it happened to.
    let operation: ObjectIdentifier
  }

  /// A no-op operation that yields `started` into a stream when it starts, then finishes with 1.
  final class StreamedNoOpOperation: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
    // Its one field is immutable and Sendable; the base class guards its own state.
    private let events: AsyncStream<StreamedEvent>.Continuation

    /// Creates an operation that reports its start to `events`.
    init(events: AsyncStream<StreamedEvent>.Continuation) {
      self.events = events
      super.init()
    }

    /// Yields `started`, then finishes with 1.
    override func main() {
      events.yield(StreamedEvent(kind: .started, operation: ObjectIdentifier(self)))
      finish(returning: 1)
    }
  }
}
