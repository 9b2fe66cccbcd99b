import LockedValue
import OperationCore

/// Remembers, per site, until when the API asked not to call `/questions` again.
///
/// Single calls ask ``checkCall(site:)`` and fail fast; a page sequence asks
/// ``whenOpen(site:longest:_:)`` and waits. Both read the same deadlines, so a backoff one of
/// them received holds for the other. Time is the clock of the data manager's queue manager,
/// and waits are entries of that manager's scheduler: a test that advances the clock by hand
/// ends them.
final class BackoffGate: Sendable {
  // State lives in `deadlines`, guarded by its lock; `scheduler` is immutable.
  private let deadlines = Locked<[String: ClockInstant]>([:])
  /// The clock the deadlines are read on; the waits are its entries.
  let scheduler: Scheduler

  /// Creates a gate on `scheduler`'s clock.
  init(scheduler: Scheduler) {
    self.scheduler = scheduler
  }

  /// Records a response's `backoff` for `site`; nil or non-positive values change nothing.
  /// An earlier, longer backoff is kept.
  func record(backoff seconds: Int?, site: String) {
    guard let seconds, seconds > 0 else { return }
    let deadline = scheduler.now + .seconds(seconds)
    deadlines.withLock { deadlines in
      deadlines[Self.key(site)] = max(deadlines[Self.key(site)] ?? deadline, deadline)
    }
  }

  /// Throws when a backoff for `site` has not expired yet.
  ///
  /// - Throws: ``BackoffError`` with the time left.
  func checkCall(site: String) throws(BackoffError) {
    let now = scheduler.now
    if let deadline = pendingDeadline(site: site, now: now) {
      throw BackoffError(site: site, retryAfter: deadline - now)
    }
  }

  /// Runs `admit` once no backoff for `site` is pending, including one recorded while waiting,
  /// as long as none has more than `longest` left: at once on the calling task when none is
  /// pending, otherwise in the scheduler entry that ends the wait, on the thread that fires it
  /// (the one advancing a test clock, before its advance returns), so the request is admitted
  /// the moment the wait ends rather than whenever the waiting task runs again.
  ///
  /// - Returns: What `admit` returned, and how long the wait lasted (zero when none was
  ///   pending).
  /// - Throws: What `admit` throws; ``BackoffError`` with the time left, without waiting
  ///   further, when a pending backoff has more than `longest` left; `CancellationError` at
  ///   once when the task is cancelled while waiting (`admit` then never runs).
  func whenOpen<Request: Sendable>(
    site: String, longest: Duration, _ admit: @escaping @Sendable () throws -> Request
  ) async throws -> (request: Request, waited: Duration) {
    let start = scheduler.now
    switch opening(site: site, longest: longest) {
    case .open: return (try admit(), .zero)
    case .tooLong(let error): throw error
    case .closed(let deadline):
      let wait = GateWait(gate: self, site: site, longest: longest, since: start, admit: admit)
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { wait.attach($0, until: deadline) }
      } onCancel: {
        wait.cancel()
      }
    }
  }

  /// Whether `site` is open now, closed until a deadline within `longest`, or closed for
  /// longer.
  func opening(site: String, longest: Duration) -> Opening {
    let now = scheduler.now
    guard let deadline = pendingDeadline(site: site, now: now) else { return .open }
    guard deadline - now <= longest else {
      return .tooLong(BackoffError(site: site, retryAfter: deadline - now))
    }
    return .closed(until: deadline)
  }

  /// What ``opening(site:longest:)`` finds.
  enum Opening {
    /// No backoff is pending.
    case open
    /// A backoff is pending until `until`, no more than the longest wait away.
    case closed(until: ClockInstant)
    /// A backoff is pending for longer than the longest wait.
    case tooLong(BackoffError)
  }

  /// The end of `site`'s backoff, or nil when none is pending at `now` (an expired one is
  /// removed).
  private func pendingDeadline(site: String, now: ClockInstant) -> ClockInstant? {
    deadlines.withLock { deadlines -> ClockInstant? in
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
