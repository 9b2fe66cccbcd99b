import AsyncBridge
import Foundation
import OperationCore

/// Remembers, per site, until when the API asked not to call `/questions` again.
///
/// Single calls ask ``checkCall(site:)`` and fail fast; a page sequence asks
/// ``whenOpen(site:longest:_:)`` and waits. Both read the same deadlines, so a backoff one of
/// them received holds for the other. Time is the data manager's `OperationQueueManager`'s
/// clock, and waits are that manager's timers: a test that advances the clock by hand ends them.
final class BackoffGate: @unchecked Sendable {
  // State lives in `deadlines`, guarded by `lock` (an `NSLock`, which ThreadSanitizer sees on
  // every platform); `clock` is immutable.
  private let lock = NSLock()
  private var deadlines: [String: ManagerClock.Instant] = [:]
  /// The clock the deadlines are read and waited on.
  let clock: ManagerClock

  /// Creates a gate on `clock`.
  init(clock: ManagerClock) {
    self.clock = clock
  }

  /// Records a response's `backoff` for `site`; nil or non-positive values change nothing.
  /// An earlier, longer backoff is kept.
  func record(backoff seconds: Int?, site: String) {
    guard let seconds, seconds > 0 else { return }
    let deadline = clock.now.advanced(by: .seconds(seconds))
    lock.withLock {
      deadlines[Self.key(site)] = max(deadlines[Self.key(site)] ?? deadline, deadline)
    }
  }

  /// Throws when a backoff for `site` has not expired yet.
  ///
  /// - Throws: ``BackoffError`` with the time left.
  func checkCall(site: String) throws(BackoffError) {
    let now = clock.now
    if let deadline = pendingDeadline(site: site, now: now) {
      throw BackoffError(site: site, retryAfter: now.duration(to: deadline))
    }
  }

  /// Runs `admit` once no backoff for `site` is pending, including one recorded while waiting,
  /// as long as none has more than `longest` left: at once on the calling task when none is
  /// pending, otherwise in the action of the clock's wait that ends it (see
  /// `ManagerClock.sleep(until:then:)`), on the thread that moves the clock there (the one
  /// advancing a test clock, before its advance returns), so the request is admitted the moment
  /// the wait ends rather than whenever the waiting task runs again.
  ///
  /// - Returns: What `admit` returned, and how long the wait lasted (zero when none was
  ///   pending).
  /// - Throws: What `admit` throws; ``BackoffError`` with the time left, without waiting
  ///   further, when a pending backoff has more than `longest` left; `CancellationError` at
  ///   once when the task is cancelled while waiting (`admit` then never runs).
  func whenOpen<Request: Sendable>(
    site: String, longest: Duration, _ admit: @escaping @Sendable () throws -> Request
  ) async throws -> (request: Request, waited: Duration) {
    let start = clock.now
    var deadline: ManagerClock.Instant
    switch opening(site: site, longest: longest) {
    case .open: return (try admit(), .zero)
    case .tooLong(let error): throw error
    case .closed(let until): deadline = until
    }
    while true {
      let woken = try await clock.sleep(until: deadline) { [self] () throws -> Wake<Request> in
        switch opening(site: site, longest: longest) {
        case .open: return .admitted(try admit(), waited: start.duration(to: clock.now))
        case .tooLong(let error): throw error
        case .closed(let until): return .closed(until: until)
        }
      }
      switch woken {
      case .admitted(let request, let waited): return (request, waited)
      // A backoff recorded during the wait: wait for it too.
      case .closed(let until): deadline = until
      }
    }
  }

  /// What the end of a wait finds: the request admitted, or a backoff recorded meanwhile.
  private enum Wake<Request: Sendable>: Sendable {
    case admitted(Request, waited: Duration)
    case closed(until: ManagerClock.Instant)
  }

  /// Whether `site` is open now, closed until a deadline within `longest`, or closed for
  /// longer.
  func opening(site: String, longest: Duration) -> Opening {
    let now = clock.now
    guard let deadline = pendingDeadline(site: site, now: now) else { return .open }
    guard now.duration(to: deadline) <= longest else {
      return .tooLong(BackoffError(site: site, retryAfter: now.duration(to: deadline)))
    }
    return .closed(until: deadline)
  }

  /// What ``opening(site:longest:)`` finds.
  enum Opening {
    /// No backoff is pending.
    case open
    /// A backoff is pending until `until`, no more than the longest wait away.
    case closed(until: ManagerClock.Instant)
    /// A backoff is pending for longer than the longest wait.
    case tooLong(BackoffError)
  }

  /// The end of `site`'s backoff, or nil when none is pending at `now` (an expired one is
  /// removed).
  private func pendingDeadline(site: String, now: ManagerClock.Instant) -> ManagerClock.Instant? {
    lock.withLock { () -> ManagerClock.Instant? in
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
