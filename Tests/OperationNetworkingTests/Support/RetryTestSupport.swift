import Dispatch
import FixtureServer
import Foundation
import LockedValue
import OperationCore
import OperationNetworking
import TestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What the retry tests decode.
struct RetryPayload: Decodable, Sendable, Equatable {
  let attempt: Int
}

/// Canned pieces of the retry tests.
enum RetryFixtures {
  /// One session for every retry test, as the operation's documentation asks.
  static let session = URLSession.makeNetworkingSession(timeout: .seconds(60))

  /// A `200` whose body names the attempt that got it.
  static func success(attempt: Int) -> FixtureResponse {
    .json(Data(#"{"attempt":\#(attempt)}"#.utf8))
  }

  /// Millisecond delays without jitter (1, 2, 4 ms…), up to `maxAttempts`, on real timers.
  static func fastPolicy(maxAttempts: Int = 3) -> RetryPolicy {
    .exponential(
      maxAttempts: maxAttempts, initialDelay: .milliseconds(1), multiplier: 2,
      maxDelay: .milliseconds(50), jitter: 0)
  }

  /// A policy whose waits `manualWaits` controls; the computed delays grow from 1 ms, the cap
  /// (and so the longest server delay honoured) is a minute.
  static func policy(
    waitingWith manualWaits: ManualRetryWaits, maxAttempts: Int = 3
  ) -> RetryPolicy {
    var policy = RetryPolicy.exponential(
      maxAttempts: maxAttempts, initialDelay: .milliseconds(1), multiplier: 2,
      maxDelay: .seconds(60), jitter: 0)
    policy.waitSource = manualWaits
    return policy
  }
}

/// A server answer per request, in order: request n gets `responses[n - 1]`, and requests past
/// the end get the last one. Counts the requests it answered.
final class ScriptedResponder: Sendable {
  private let responses: [FixtureResponse]
  private let served = Locked(0)

  init(_ responses: [FixtureResponse]) {
    self.responses = responses
  }

  /// Answers the next request.
  func respond(to request: FixtureRequest) -> FixtureResponse {
    let index = served.withLock { count in
      count += 1
      return count - 1
    }
    return responses[min(index, responses.count - 1)]
  }

  /// Starts a server that answers with this script.
  func makeServer() throws -> FixtureHTTPServer {
    try FixtureHTTPServer { [self] request in respond(to: request) }
  }
}

/// Waits between attempts that a test ends by hand (or at once, when `firesOnStart`), and
/// records every wait the operation asked for.
final class ManualRetryWaits: RetryWaitSource {
  private let firesOnStart: Bool
  private let made = Locked<[ManualRetryWait]>([])

  /// - Parameter firesOnStart: End each wait as soon as it starts (on another thread), instead
  ///   of when the test calls ``ManualRetryWait/fire()``.
  init(firesOnStart: Bool) {
    self.firesOnStart = firesOnStart
  }

  func makeWait(
    for delay: Duration, then action: @escaping @Sendable () -> Void
  ) -> any RetryWait {
    let wait = ManualRetryWait(delay: delay, firesOnStart: firesOnStart, action: action)
    made.withLock { $0.append(wait) }
    return wait
  }

  /// Every wait made so far, in order.
  var waits: [ManualRetryWait] { made.withLock { $0 } }

  /// The delays of the waits that were started, in order.
  var startedDelays: [Duration] { waits.filter(\.isStarted).map(\.delay) }

  /// The first wait to start after `count` others did, within 30 s; nil if none did.
  func startedWait(number count: Int) async -> ManualRetryWait? {
    guard await eventually({ waits.filter(\.isStarted).count >= count }) else { return nil }
    return waits.filter(\.isStarted)[count - 1]
  }
}

/// One wait of a ``ManualRetryWaits``.
final class ManualRetryWait: RetryWait {
  private struct State {
    var isStarted = false
    var isCancelled = false
  }

  /// The delay the operation asked for.
  let delay: Duration
  private let firesOnStart: Bool
  private let action: @Sendable () -> Void
  private let state = Locked(State())

  init(delay: Duration, firesOnStart: Bool, action: @escaping @Sendable () -> Void) {
    self.delay = delay
    self.firesOnStart = firesOnStart
    self.action = action
  }

  var isStarted: Bool { state.withLock { $0.isStarted } }
  var isCancelled: Bool { state.withLock { $0.isCancelled } }

  func start() {
    let fires = state.withLock { state in
      state.isStarted = true
      return firesOnStart && !state.isCancelled
    }
    if fires { DispatchQueue.global().async { [action] in action() } }
  }

  func cancel() {
    state.withLock { $0.isCancelled = true }
  }

  /// Ends the wait now, on this thread, even if it was cancelled: a timer firing just as it is
  /// cancelled does that.
  func fire() {
    action()
  }
}

extension Result where Failure == any Error {
  /// The HTTP status of a ``NetworkingError/badStatus(statusCode:serverError:bodyExcerpt:)``
  /// failure, or nil.
  var failedStatus: Int? {
    guard case .failure(let error) = self,
      case .badStatus(let statusCode, _, _)? = error as? NetworkingError
    else { return nil }
    return statusCode
  }

  /// The code of a ``NetworkingError/transport(_:)`` failure, or nil.
  var transportCode: URLError.Code? {
    guard case .failure(let error) = self,
      case .transport(let urlError)? = error as? NetworkingError
    else { return nil }
    return urlError.code
  }
}
