import Foundation
import OperationCore
import OperationNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension RetryPolicy {
  /// This policy, also waiting at least as long as a failing response's `backoff` field asks:
  /// the StackExchange API tells a client to slow down with a top-level number of seconds in
  /// its JSON body (a throttle violation, say), beside the `Retry-After` header every policy
  /// honours. The larger of the two is the minimum wait; one past ``maxDelay`` is not retried.
  public var honouringStackExchangeBackoff: RetryPolicy {
    var policy = self
    policy.serverRequestedDelay = { _, body in StackExchangeBackoff.requestedDelay(in: body) }
    return policy
  }
}

/// Reads the StackExchange API's `backoff` field from a response body. A value type with no
/// side effects.
enum StackExchangeBackoff {
  /// The `backoff` field of a JSON object body as a duration, at most a hundred years (a JSON
  /// number such as `1e30` would overflow a `Duration` and trap; a century is more than any
  /// retry policy waits); nil when there is none, or it is negative.
  static func requestedDelay(in body: Data) -> Duration? {
    guard !body.isEmpty, let field = try? JSONDecoder().decode(BackoffField.self, from: body),
      let seconds = field.backoff, seconds >= 0
    else { return nil }
    return seconds < century / .seconds(1) ? .seconds(seconds) : century
  }

  /// A hundred years, the longest delay read.
  private static let century = Duration.seconds(100 * 365 * 24 * 3600)

  /// The one field read from a failing body.
  private struct BackoffField: Decodable {
    let backoff: Double?
  }
}
