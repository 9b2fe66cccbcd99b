import Foundation
import OperationCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLSession {
  /// Makes a session suited to ``NetworkingOperation``: an ephemeral configuration with no URL
  /// cache, requests that ignore locally cached data, a request timeout, and a delegate through
  /// which networking operations receive their bodies, so that `maxResponseBytes` stops a body
  /// as it arrives. On swift-corelibs-foundation the delegate also ends a request answered with
  /// a 401 asking for credentials the session has not got with that 401, as Apple platforms do
  /// (corelibs 6.3.1 alone waits for the request timeout; a task of other code on the session
  /// ends cancelled instead of waiting forever), and names a redirect's target as the failing
  /// URL of an error after it.
  ///
  /// The delegate serves the session's networking operations only: a data task other code
  /// creates on the session with a completion handler works as usual, one without gets no
  /// delegate calls.
  ///
  /// Create one session and reuse it for every operation; never invalidate it while operations
  /// may still use it (creating a data task on an invalidated session traps, and invalidating
  /// sessions per request has known teardown crashes in swift-corelibs-foundation). Without a
  /// URL cache, cancelling a data task that races a failing connection does not crash
  /// swift-corelibs-foundation 6.3.1, which it does with one.
  ///
  /// - Parameter timeout: How long a request may wait for data before it fails with
  ///   `URLError.timedOut`. On Linux the request timeout counts whole seconds only (a fraction
  ///   is dropped, and below one second it expires almost at once), so it is rounded up to a
  ///   whole number of seconds there. At most 100 years: a longer one (`.seconds(Int64.max)`
  ///   for "none", say) traps in swift-corelibs-foundation's conversion when a request starts.
  /// - Parameter maximumConnectionsPerHost: How many connections to one host the session opens
  ///   at once, at least 1; nil keeps the platform's default (6, which swift-corelibs-foundation
  ///   enforces; docs/PLATFORM-NOTES.md). Raise it for wide fan-outs.
  /// - Returns: A new session; keep it for the life of the feature that uses it.
  public static func makeNetworkingSession(
    timeout: Duration = .seconds(30), maximumConnectionsPerHost: Int? = nil
  ) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.timeoutIntervalForRequest = honouredTimeoutInterval(timeout.timeInterval)
    if let maximumConnectionsPerHost {
      configuration.httpMaximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
    }
    return URLSession(
      configuration: configuration, delegate: NetworkingSessionDelegate(), delegateQueue: nil)
  }

  /// `interval` as a request timeout the platform honours: swift-corelibs-foundation converts
  /// it with `Int(interval) * 1000` milliseconds, so on Linux it is rounded up to whole seconds,
  /// at least one; at most ``longestTimeoutInterval`` everywhere.
  static func honouredTimeoutInterval(_ interval: TimeInterval) -> TimeInterval {
    let interval = min(interval, longestTimeoutInterval)
    #if canImport(FoundationNetworking)
      return max(1, interval.rounded(.up))
    #else
      return interval
    #endif
  }

  /// The longest request timeout a session is given: 100 years, in seconds. corelibs 6.3.1
  /// converts the timeout to milliseconds as an `Int` (`Int(interval) * 1000`), which traps for
  /// `.seconds(Int64.max)`; a century is as good as none.
  static let longestTimeoutInterval: TimeInterval = Duration.century.timeInterval
}
