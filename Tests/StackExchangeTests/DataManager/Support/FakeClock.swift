import OperationCore

/// A clock that moves only when told to, for backoff tests that must not sleep.
final class FakeClock: Sendable {
  private let instant = Locked(ContinuousClock.now)

  /// The current fake time.
  var now: ContinuousClock.Instant { instant.withLock { $0 } }

  /// Moves the fake time forward.
  func advance(by duration: Duration) {
    instant.withLock { $0 += duration }
  }
}
