/// How a ``BackoffGate`` reads the time and waits: the continuous clock, or a manual one in
/// tests.
struct BackoffClock: Sendable {
  /// The current instant.
  var now: @Sendable () -> ContinuousClock.Instant
  /// Suspends until `deadline`; throws `CancellationError` at once when the task is cancelled.
  var sleep: @Sendable (_ deadline: ContinuousClock.Instant) async throws -> Void

  /// `ContinuousClock` and `Task.sleep`: no thread is held while waiting.
  static let continuous = BackoffClock(
    now: { .now }, sleep: { try await Task.sleep(until: $0, clock: .continuous) })
}
