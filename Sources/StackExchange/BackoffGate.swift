import LockedValue
import OperationCore

/// Remembers, per site, until when the API asked not to call `/questions` again.
///
/// Single calls ask ``checkCall(site:)`` and fail fast; a page sequence asks
/// ``waitUntilOpen(site:longest:)`` and waits. Both read the same deadlines, so a backoff one of
/// them received holds for the other.
final class BackoffGate: Sendable {
  // State lives in `deadlines`, guarded by its lock; `clock` is immutable.
  private let deadlines = Locked<[String: ContinuousClock.Instant]>([:])
  private let clock: BackoffClock

  /// Creates a gate on `clock` (tests pass a manual one).
  init(clock: BackoffClock = .continuous) {
    self.clock = clock
  }

  /// Records a response's `backoff` for `site`; nil or non-positive values change nothing.
  /// An earlier, longer backoff is kept.
  func record(backoff seconds: Int?, site: String) {
    guard let seconds, seconds > 0 else { return }
    let deadline = clock.now() + .seconds(seconds)
    deadlines.withLock { deadlines in
      deadlines[Self.key(site)] = max(deadlines[Self.key(site)] ?? deadline, deadline)
    }
  }

  /// Throws when a backoff for `site` has not expired yet.
  ///
  /// - Throws: ``BackoffError`` with the time left.
  func checkCall(site: String) throws(BackoffError) {
    let now = clock.now()
    if let deadline = pendingDeadline(site: site, now: now) {
      throw BackoffError(site: site, retryAfter: deadline - now)
    }
  }

  /// Waits until no backoff for `site` is pending, including one recorded while waiting, as
  /// long as none has more than `longest` left.
  ///
  /// - Returns: How long it waited; zero when no backoff was pending.
  /// - Throws: ``BackoffError`` with the time left, without waiting further, when a pending
  ///   backoff has more than `longest` left; `CancellationError` at once when the task is
  ///   cancelled while waiting.
  func waitUntilOpen(site: String, longest: Duration) async throws -> Duration {
    let start = clock.now()
    var waited = false
    while true {
      let now = clock.now()
      guard let deadline = pendingDeadline(site: site, now: now) else { break }
      guard deadline - now <= longest else {
        throw BackoffError(site: site, retryAfter: deadline - now)
      }
      waited = true
      try await clock.sleep(deadline)
    }
    return waited ? clock.now() - start : .zero
  }

  /// The end of `site`'s backoff, or nil when none is pending at `now` (an expired one is
  /// removed).
  private func pendingDeadline(site: String, now: ContinuousClock.Instant) -> ContinuousClock
    .Instant?
  {
    deadlines.withLock { deadlines -> ContinuousClock.Instant? in
      guard let deadline = deadlines[Self.key(site)] else { return nil }
      guard deadline > now else {
        deadlines[Self.key(site)] = nil
        return nil
      }
      return deadline
    }
  }

  /// Site parameters are case-insensitive in the API.
  private static func key(_ site: String) -> String { site.lowercased() }
}
