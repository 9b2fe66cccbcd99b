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
    // From the components: a backoff of `Int.max` seconds (the API's field is an integer) is
    // past what a `Double` converts back to `Int` without trapping.
    let (whole, attoseconds) = retryAfter.components
    let seconds = attoseconds > 0 && whole < .max ? whole + 1 : whole
    return "the API asked to back off: no /questions call on \(site) for another \(seconds) s"
  }

  /// Same as `description`, so `localizedDescription` is readable too.
  public var errorDescription: String? { description }
}
