import OperationCore

/// Remembers, per site, until when the API asked not to call `/questions` again, and refuses
/// calls until then.
final class BackoffGate: Sendable {
  // State lives in `deadlines`, guarded by its lock; `now` is immutable.
  private let deadlines = Locked<[String: ContinuousClock.Instant]>([:])
  private let now: @Sendable () -> ContinuousClock.Instant

  /// Creates a gate that reads the time from `now` (tests pass a fake clock).
  init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
    self.now = now
  }

  /// Records a response's `backoff` for `site`; nil or non-positive values change nothing.
  /// An earlier, longer backoff is kept.
  func record(backoff seconds: Int?, site: String) {
    guard let seconds, seconds > 0 else { return }
    let deadline = now() + .seconds(seconds)
    deadlines.withLock { deadlines in
      deadlines[Self.key(site)] = max(deadlines[Self.key(site)] ?? deadline, deadline)
    }
  }

  /// Throws when a backoff for `site` has not expired yet.
  ///
  /// - Throws: ``BackoffError`` with the time left.
  func checkCall(site: String) throws(BackoffError) {
    let now = now()
    let remaining = deadlines.withLock { deadlines -> Duration? in
      guard let deadline = deadlines[Self.key(site)] else { return nil }
      guard deadline > now else {
        deadlines[Self.key(site)] = nil
        return nil
      }
      return deadline - now
    }
    if let remaining { throw BackoffError(site: site, retryAfter: remaining) }
  }

  /// Site parameters are case-insensitive in the API.
  private static func key(_ site: String) -> String { site.lowercased() }
}
