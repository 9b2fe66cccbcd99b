import Foundation
import OperationCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// When a ``NetworkingOperation`` sends its request again after a failed attempt, and how long
/// it waits first.
///
/// The retries happen inside the one operation, so every caller that joined it (coalescing)
/// shares the attempts: twenty waiters on a request whose first two attempts fail see one
/// success, and the server sees three requests. The wait between attempts holds no thread
/// (an entry of the manager's scheduler, on the manager's clock) and ends at once when the
/// operation is cancelled or times out; the operation's own `ConcurrentOperation.timeout` counts
/// all attempts and waits together.
///
/// ```swift
/// let fetch = NetworkingOperation<Page>(
///   request: request, session: session,
///   retryPolicy: .exponential(maxAttempts: 4, initialDelay: .milliseconds(250)))
/// ```
///
/// **The delay** before attempt n + 1 is `initialDelay × multiplierⁿ⁻¹`, capped at
/// `maxDelay`, then shortened by a random fraction of at most `jitter` of itself, so that
/// clients failing together do not come back together. A server that says when to come back
/// sets the minimum: a `Retry-After` header (seconds or an HTTP date), or, for an API that says
/// it in the body, what ``serverRequestedDelay`` reads there (the larger of the two when both
/// are there). A server asking for more than `maxDelay` is not retried: the failure is
/// delivered at once, carrying the server's answer, rather than holding every waiter longer
/// than the policy allows.
///
/// **Which failures** are retried is ``shouldRetry``; by default ``isTransient(_:)``. A failure
/// that is not retried, or the last attempt's failure, is delivered to the waiters as is.
public struct RetryPolicy: Sendable {
  /// How many attempts in all, the first included; 1 means no retry. Values below 1 count as 1.
  public var maxAttempts: Int
  /// The delay after the first failed attempt, before jitter.
  public var initialDelay: Duration
  /// What each further delay is multiplied by; values below 1, and NaN, count as 1.
  public var multiplier: Double
  /// The longest delay between attempts, and the longest server-requested delay honoured;
  /// below zero counts as zero.
  public var maxDelay: Duration
  /// The largest fraction of a delay that randomness removes, from 0 (exact delays) to 1 (any
  /// delay up to the computed one); values outside are clamped, and NaN counts as 0.
  public var jitter: Double
  /// Whether an attempt that failed with this error is worth another; ``isTransient(_:)`` by
  /// default. Called on the thread that processed the response; keep it fast and pure.
  public var shouldRetry: @Sendable (NetworkingError) -> Bool
  /// Reads how long a failing response's body asks the client to wait before the next attempt,
  /// for an API that says it there rather than (or as well as) in a `Retry-After` header; nil
  /// when the body asks for nothing. Nil by default: only the header counts. An API's own
  /// module supplies its reading, so this layer knows no API's fields. Called with the HTTP
  /// response and its body (possibly empty) on the thread that processed the response; keep
  /// it fast and pure.
  public var serverRequestedDelay: (@Sendable (HTTPURLResponse, Data) -> Duration?)? = nil

  /// Makes the waits between attempts; nil (the default) waits on the clock of the manager
  /// that admitted the operation (the continuous clock outside any manager). Replaced in tests
  /// that end each wait by hand.
  package var waitSource: (any RetryWaitSource)?

  /// Creates a policy;
  /// ``exponential(maxAttempts:initialDelay:multiplier:maxDelay:jitter:shouldRetry:)`` offers
  /// defaults for each value.
  ///
  /// - Parameters:
  ///   - maxAttempts: Attempts in all, the first included; 1 means no retry.
  ///   - initialDelay: The delay after the first failure, before jitter.
  ///   - multiplier: What each further delay is multiplied by.
  ///   - maxDelay: The cap on a delay, and the most a server may ask for and still be retried.
  ///   - jitter: The largest fraction of each delay that randomness removes (0 for none).
  ///   - shouldRetry: Which failures are retried; ``isTransient(_:)`` by default.
  public init(
    maxAttempts: Int,
    initialDelay: Duration,
    multiplier: Double,
    maxDelay: Duration,
    jitter: Double,
    shouldRetry: @escaping @Sendable (NetworkingError) -> Bool = RetryPolicy.isTransient
  ) {
    self.maxAttempts = maxAttempts
    self.initialDelay = initialDelay
    self.multiplier = multiplier
    self.maxDelay = maxDelay
    self.jitter = jitter
    self.shouldRetry = shouldRetry
  }

  /// No retry: the first attempt's failure is delivered. The default of ``NetworkingOperation``.
  public static let none = RetryPolicy(
    maxAttempts: 1, initialDelay: .zero, multiplier: 1, maxDelay: .zero, jitter: 0,
    shouldRetry: { _ in false })

  /// Exponential backoff with jitter and a cap.
  ///
  /// - Parameters:
  ///   - maxAttempts: Attempts in all, the first included (3: two retries).
  ///   - initialDelay: The delay after the first failure, before jitter.
  ///   - multiplier: What each further delay is multiplied by.
  ///   - maxDelay: The cap on a delay, and the most a server may ask for and still be retried.
  ///   - jitter: The largest fraction of each delay that randomness removes (0 for none).
  ///   - shouldRetry: Which failures are retried; ``isTransient(_:)`` by default.
  /// - Returns: The policy.
  public static func exponential(
    maxAttempts: Int = 3,
    initialDelay: Duration = .milliseconds(500),
    multiplier: Double = 2,
    maxDelay: Duration = .seconds(30),
    jitter: Double = 0.5,
    shouldRetry: @escaping @Sendable (NetworkingError) -> Bool = RetryPolicy.isTransient
  ) -> RetryPolicy {
    RetryPolicy(
      maxAttempts: maxAttempts, initialDelay: initialDelay, multiplier: multiplier,
      maxDelay: maxDelay, jitter: jitter, shouldRetry: shouldRetry)
  }

  /// The default classification: failures that another attempt may well not meet.
  ///
  /// True for transport timeouts (`URLError.timedOut`), lost connections
  /// (`.networkConnectionLost`, and `.badServerResponse`, which is how swift-corelibs-foundation
  /// reports a connection closed without a response), and the statuses 429 (too many
  /// requests), 502 (bad gateway), 503 (service unavailable) and 504 (gateway timeout). False
  /// for everything else: other statuses (400, 404…), undecodable bodies, oversized responses.
  ///
  /// - Parameter failure: What the attempt failed with.
  /// - Returns: Whether to try again.
  @Sendable public static func isTransient(_ failure: NetworkingError) -> Bool {
    switch failure {
    case .transport(let error):
      [.timedOut, .networkConnectionLost, .badServerResponse].contains(error.code)
    case .badStatus(let statusCode, _, _):
      [429, 502, 503, 504].contains(statusCode)
    case .noData, .nonHTTPResponse, .undecodable, .responseTooLarge:
      false
    }
  }

  /// The wait before the next attempt once attempt `attempt` (from 1) failed with `failure`,
  /// or nil to deliver the failure: no attempt left, not retryable, or the server asked for
  /// more than ``maxDelay``.
  func delay(
    afterAttempt attempt: Int, failure: NetworkingError, serverMinimum: Duration?
  ) -> Duration? {
    guard attempt < maxAttempts, shouldRetry(failure) else { return nil }
    let serverMinimum = serverMinimum ?? .zero
    guard serverMinimum <= max(maxDelay, .zero) else { return nil }
    let backoff = backoff(afterAttempt: attempt, randomFraction: Double.random(in: 0..<1))
    return max(backoff, serverMinimum)
  }

  /// The computed delay after attempt `attempt` failed: exponential, capped, with jitter
  /// removing `jitter × randomFraction` of it.
  func backoff(afterAttempt attempt: Int, randomFraction: Double) -> Duration {
    let maxDelay = max(self.maxDelay, .zero)
    // `max` passes NaN through, and a NaN growth would read as past any cap.
    let multiplier = multiplier.isNaN ? 1 : max(multiplier, 1)
    let growth = pow(multiplier, Double(max(attempt, 1) - 1))
    let uncapped = initialDelay.timeInterval * growth
    // Compare as Double first: `Duration * Double` traps when the product overflows.
    let capped =
      uncapped.isFinite && uncapped < maxDelay.timeInterval
      ? initialDelay * growth : maxDelay
    // `min`/`max` pass NaN through, and a NaN factor traps in `Duration * Double`.
    let jitter = jitter.isNaN ? 0 : min(max(jitter, 0), 1)
    let removed = jitter * min(max(randomFraction, 0), 1)
    guard removed > 0 else { return max(capped, .zero) }
    return max(capped * (1 - removed), .zero)
  }
}
