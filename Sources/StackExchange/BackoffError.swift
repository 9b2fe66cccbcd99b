import Foundation

/// The error a ``QuestionsDataManager`` call fails with, without sending a request, while the
/// StackExchange API's `backoff` for `/questions` on the site has not expired.
///
/// The API sends `"backoff": N` when it wants a client to leave a method alone for N seconds,
/// and throttles clients that do not.
public struct BackoffError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
  /// The site whose `/questions` method is backing off.
  public let site: String
  /// How long until the backoff expires and a call may be sent again.
  public let retryAfter: Duration

  /// Creates a backoff error.
  public init(site: String, retryAfter: Duration) {
    self.site = site
    self.retryAfter = retryAfter
  }

  /// One line for a CLI, e.g. `the API asked to back off: no /questions call on
  /// stackoverflow for another 7 s`. The remaining time is rounded up to whole seconds.
  public var description: String {
    "the API asked to back off: no /questions call on \(site) for another \(wholeSecondsLeft) s"
  }

  /// `retryAfter` rounded up to whole seconds, from 0 to `Int64.max`. From the components, not
  /// through a `Double` (a backoff of `Int.max` seconds, the API's field being an integer, is
  /// past what a `Double` converts back to `Int` without trapping), and only below `Int64.max`
  /// seconds, past which the components trap.
  private var wholeSecondsLeft: Int64 {
    guard retryAfter > .zero else { return 0 }
    guard retryAfter < .seconds(Int64.max) else { return .max }
    let (whole, attoseconds) = retryAfter.components
    return attoseconds > 0 ? whole + 1 : whole
  }

  /// Same as `description`, so `localizedDescription` is readable too.
  public var errorDescription: String? { description }
}
