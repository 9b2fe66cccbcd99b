import Foundation
import OperationCore
import Testing

@testable import OperationNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The policy's arithmetic and classification, and the server's requested delay, without a
/// network.
@Suite struct RetryPolicyTests {
  private let unavailable = NetworkingError.badStatus(
    statusCode: 503, serverError: nil, bodyExcerpt: "")

  @Test func delaysGrowExponentiallyUpToTheCap() {
    let policy = RetryPolicy.exponential(
      maxAttempts: 10, initialDelay: .milliseconds(100), multiplier: 3,
      maxDelay: .seconds(1), jitter: 0)
    let delays = (1...5).map { policy.backoff(afterAttempt: $0, randomFraction: 0.7) }
    #expect(
      delays == [
        .milliseconds(100), .milliseconds(300), .milliseconds(900), .seconds(1), .seconds(1),
      ])
  }

  @Test func hugeGrowthIsCappedInsteadOfOverflowing() {
    let policy = RetryPolicy.exponential(
      maxAttempts: .max, initialDelay: .seconds(1), multiplier: 1e6, maxDelay: .seconds(30))
    #expect(policy.backoff(afterAttempt: 1_000, randomFraction: 0) == .seconds(30))
  }

  @Test func jitterRemovesAtMostItsFractionOfTheDelay() {
    let policy = RetryPolicy.exponential(
      initialDelay: .seconds(1), multiplier: 2, maxDelay: .seconds(60), jitter: 0.25)
    #expect(policy.backoff(afterAttempt: 2, randomFraction: 0) == .seconds(2))
    #expect(policy.backoff(afterAttempt: 2, randomFraction: 0.5) == .milliseconds(1_750))
    #expect(policy.backoff(afterAttempt: 2, randomFraction: 1) == .milliseconds(1_500))
    // Out-of-range settings are clamped, not trusted.
    var wild = policy
    wild.jitter = 7
    #expect(wild.backoff(afterAttempt: 1, randomFraction: 0.5) == .milliseconds(500))
  }

  /// Settings a caller may well pass trap nowhere: a NaN jitter (`min`/`max` let it through)
  /// counts as none, a negative cap as zero, and a cap of `Int64.max` seconds reached through
  /// an infinite multiplier is a delay Dispatch can be given.
  @Test func extremeSettingsGiveDelaysInsteadOfTrapping() {
    var policy = RetryPolicy.exponential(
      initialDelay: .seconds(1), multiplier: 2, maxDelay: .seconds(60), jitter: .nan)
    #expect(policy.backoff(afterAttempt: 2, randomFraction: 0.7) == .seconds(2))
    policy.maxDelay = .seconds(-5)
    #expect(policy.delay(afterAttempt: 1, failure: unavailable, serverMinimum: nil) == .zero)
    let endless = RetryPolicy.exponential(
      initialDelay: .seconds(1), multiplier: .infinity, maxDelay: .seconds(Int64.max), jitter: 0)
    let delay = endless.backoff(afterAttempt: 2, randomFraction: 0)
    #expect(delay == .seconds(Int64.max))
    #expect(delay.timeInterval > 9e18)
    #expect((Duration.seconds(Int64.max) + .seconds(1)).timeInterval > 9e18)
    // A NaN multiplier counts as 1, as values below 1 do, rather than jumping to `maxDelay`.
    let flat = RetryPolicy.exponential(
      initialDelay: .seconds(1), multiplier: .nan, maxDelay: .seconds(60), jitter: 0)
    #expect(flat.backoff(afterAttempt: 3, randomFraction: 0) == .seconds(1))
  }

  @Test func randomJitterStaysWithinItsBounds() {
    let policy = RetryPolicy.exponential(
      initialDelay: .seconds(1), maxDelay: .seconds(60), jitter: 0.5)
    for _ in 0..<200 {
      let delay = policy.delay(afterAttempt: 1, failure: unavailable, serverMinimum: nil)
      #expect(delay.map { $0 > .milliseconds(500) && $0 <= .seconds(1) } == true)
    }
  }

  @Test func attemptsStopAtMaxAttempts() {
    let policy = RetryPolicy.exponential(maxAttempts: 3, jitter: 0)
    #expect(policy.delay(afterAttempt: 1, failure: unavailable, serverMinimum: nil) != nil)
    #expect(policy.delay(afterAttempt: 2, failure: unavailable, serverMinimum: nil) != nil)
    #expect(policy.delay(afterAttempt: 3, failure: unavailable, serverMinimum: nil) == nil)
    #expect(
      RetryPolicy.none.delay(afterAttempt: 1, failure: unavailable, serverMinimum: nil) == nil)
  }

  @Test func serverMinimumRaisesTheDelayUnlessItExceedsTheCap() {
    let policy = RetryPolicy.exponential(
      initialDelay: .milliseconds(10), maxDelay: .seconds(30), jitter: 0)
    let raised = policy.delay(afterAttempt: 1, failure: unavailable, serverMinimum: .seconds(5))
    let kept = policy.delay(
      afterAttempt: 1, failure: unavailable, serverMinimum: .milliseconds(1))
    let refused = policy.delay(afterAttempt: 1, failure: unavailable, serverMinimum: .seconds(31))
    #expect(raised == .seconds(5))
    #expect(kept == .milliseconds(10))
    #expect(refused == nil, "waiting longer than maxDelay is not retrying but stalling")
  }

  @Test func defaultClassificationRetriesTimeoutsLostConnectionsAndOverloadStatuses() {
    let retried: [NetworkingError] =
      [URLError.Code.timedOut, .networkConnectionLost, .badServerResponse].map {
        .transport(URLError($0))
      }
      + [429, 502, 503, 504].map { .badStatus(statusCode: $0, serverError: nil, bodyExcerpt: "") }
    let delivered: [NetworkingError] =
      [URLError.Code.cancelled, .cannotFindHost, .badURL, .unknown].map {
        .transport(URLError($0))
      }
      + [400, 401, 404, 500, 501].map {
        .badStatus(statusCode: $0, serverError: nil, bodyExcerpt: "")
      } + [
        .noData(statusCode: 204), .nonHTTPResponse(nil),
        .responseTooLarge(byteCount: 2, limit: 1),
        .undecodable(.dataCorrupted(.init(codingPath: [], debugDescription: "")), bodyExcerpt: ""),
      ]
    #expect(retried.allSatisfy(RetryPolicy.isTransient))
    #expect(!delivered.contains(where: RetryPolicy.isTransient))
  }

  @Test func customClassificationDecides() {
    let policy = RetryPolicy.exponential(shouldRetry: { error in
      if case .badStatus(500, _, _) = error { return true }
      return false
    })
    let internalError = NetworkingError.badStatus(
      statusCode: 500, serverError: nil, bodyExcerpt: "")
    #expect(policy.delay(afterAttempt: 1, failure: internalError, serverMinimum: nil) != nil)
    #expect(policy.delay(afterAttempt: 1, failure: unavailable, serverMinimum: nil) == nil)
  }

  @Test func retryAfterReadsSecondsAndHTTPDates() throws {
    let now = Date(timeIntervalSince1970: 1_445_412_400)  // Wed, 21 Oct 2015 07:26:40 GMT
    #expect(ServerRetryDelay.retryAfter(" 120 ", now: now) == .seconds(120))
    #expect(ServerRetryDelay.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(80))
    #expect(ServerRetryDelay.retryAfter("Wed, 21 Oct 2015 07:20:00 GMT", now: now) == .zero)
    #expect(ServerRetryDelay.retryAfter("-3", now: now) == nil)
    #expect(ServerRetryDelay.retryAfter("soon", now: now) == nil)
  }

  /// HTTP has three date forms, and a recipient must accept each (RFC 9110, 5.6.7): a date in
  /// a form not read would be ignored, and the request retried sooner than the server asked.
  @Test func retryAfterReadsEveryHTTPDateForm() {
    let now = Date(timeIntervalSince1970: 1_445_412_400)  // Wed, 21 Oct 2015 07:26:40 GMT
    #expect(ServerRetryDelay.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(80))
    #expect(
      ServerRetryDelay.retryAfter("Wednesday, 21-Oct-15 07:28:00 GMT", now: now) == .seconds(80))
    #expect(ServerRetryDelay.retryAfter("Wed Oct 21 07:28:00 2015", now: now) == .seconds(80))
    // asctime pads a one-digit day with a space.
    #expect(
      ServerRetryDelay.retryAfter("Fri Nov  6 07:26:40 2015", now: now) == .seconds(16 * 86_400))
    // A two-digit year more than 50 years ahead is the past one with the same digits.
    #expect(ServerRetryDelay.retryAfter("Tuesday, 21-Oct-80 07:28:00 GMT", now: now) == .zero)
    #expect(
      ServerRetryDelay.retryAfter("Saturday, 21-Oct-45 07:28:00 GMT", now: now)
        == .seconds(946_771_280))
  }

  /// A delay too long for a `Duration` (which traps on overflow) is read as the longest one,
  /// so the policy does not retry it; the process goes on.
  @Test func anOverlongServerDelayIsReadAsTheLongestAndNotRetried() throws {
    let now = Date(timeIntervalSince1970: 1_445_412_400)
    #expect(
      ServerRetryDelay.retryAfter("9223372036854775807", now: now) == ServerRetryDelay.longest)
    // More digits than an `Int` holds: still a long wait, not no header at all.
    #expect(
      ServerRetryDelay.retryAfter("99999999999999999999999", now: now) == ServerRetryDelay.longest)
    #expect(ServerRetryDelay.retryAfter("12abc", now: now) == nil)
    #expect(
      ServerRetryDelay.retryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now: now)
        == ServerRetryDelay.longest)
    let policy = RetryPolicy.exponential(maxDelay: .seconds(30))
    let delay = ServerRetryDelay.longest
    #expect(policy.delay(afterAttempt: 1, failure: unavailable, serverMinimum: delay) == nil)
  }

  @Test func theLargerOfHeaderAndBodyWins() throws {
    let url = try #require(URL(string: "http://127.0.0.1/busy"))
    let response = HTTPURLResponse(
      url: url, statusCode: 503, httpVersion: "HTTP/1.1", headerFields: ["retry-after": "4"])
    let body = Data("wait 9".utf8)
    let readsNine: @Sendable (HTTPURLResponse, Data) -> Duration? = { _, body in
      body == Data("wait 9".utf8) ? .seconds(9) : nil
    }
    #expect(
      ServerRetryDelay.requested(by: response, body: body, bodyDelay: readsNine) == .seconds(9))
    #expect(
      ServerRetryDelay.requested(by: response, body: Data(), bodyDelay: readsNine) == .seconds(4))
    #expect(ServerRetryDelay.requested(by: nil, body: nil, bodyDelay: readsNine) == nil)
  }

  /// The body says nothing to this layer unless the policy has a reader for it: a JSON
  /// `backoff` field (the StackExchange API's) is that API's module's to read.
  @Test func withoutABodyReaderOnlyTheHeaderCounts() throws {
    let url = try #require(URL(string: "http://127.0.0.1/busy"))
    let response = HTTPURLResponse(
      url: url, statusCode: 503, httpVersion: "HTTP/1.1", headerFields: ["retry-after": "4"])
    let body = Data(#"{"backoff":9}"#.utf8)
    #expect(ServerRetryDelay.requested(by: response, body: body, bodyDelay: nil) == .seconds(4))
    let silent = HTTPURLResponse(
      url: url, statusCode: 503, httpVersion: "HTTP/1.1", headerFields: [:])
    #expect(ServerRetryDelay.requested(by: silent, body: body, bodyDelay: nil) == nil)
    #expect(RetryPolicy.exponential().serverRequestedDelay == nil)
  }
}
