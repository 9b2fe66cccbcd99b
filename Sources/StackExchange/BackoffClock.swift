import OperationCore

/// How a ``BackoffGate`` reads the time and waits: the continuous clock, or a manual one in
/// tests.
struct BackoffClock: Sendable {
  /// The current instant.
  var now: @Sendable () -> ContinuousClock.Instant
  /// Suspends until `deadline`; throws `CancellationError` at once when the task is cancelled.
  var sleep: @Sendable (_ deadline: ContinuousClock.Instant) async throws -> Void

  /// `ContinuousClock` and `Task.sleep`: no thread is held while waiting. A sleep lasts at most
  /// a century (the gate sleeps again if the backoff is longer): `Task.sleep` traps on a
  /// deadline past `Int64.max` seconds, which a server's `backoff` and a caller's
  /// `maxBackoffWait` of `.seconds(Int64.max)` reach.
  static let continuous = BackoffClock(
    now: { .now },
    sleep: { deadline in
      try await Task.sleep(until: bounded(deadline, now: .now), clock: .continuous)
    })

  /// The longest single sleep: a hundred years.
  static let longestSleep = Duration.century

  /// `deadline`, or ``longestSleep`` after `now` if that comes first.
  static func bounded(
    _ deadline: ContinuousClock.Instant, now: ContinuousClock.Instant
  ) -> ContinuousClock.Instant {
    min(deadline, now + longestSleep)
  }
}
