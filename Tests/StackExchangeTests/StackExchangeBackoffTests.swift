import Foundation
import OperationCore
import OperationNetworking
import Testing

@testable import StackExchange

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The StackExchange API's `backoff` field in a failing body, as a retry policy reads it.
@Suite struct StackExchangeBackoffTests {
  private let throttled = Data(
    #"{"error_id":502,"error_name":"throttle_violation","error_message":"slow down","backoff":7}"#
      .utf8)

  private func response(status: Int = 429) throws -> HTTPURLResponse {
    let url = try #require(URL(string: "http://127.0.0.1/2.3/questions"))
    return try #require(
      HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:]))
  }

  @Test func backoffIsReadFromAJSONBody() {
    #expect(StackExchangeBackoff.requestedDelay(in: throttled) == .seconds(7))
    #expect(StackExchangeBackoff.requestedDelay(in: Data(#"{"error_id":503}"#.utf8)) == nil)
    #expect(StackExchangeBackoff.requestedDelay(in: Data("<html>busy</html>".utf8)) == nil)
    #expect(StackExchangeBackoff.requestedDelay(in: Data(#"{"backoff":-1}"#.utf8)) == nil)
    #expect(StackExchangeBackoff.requestedDelay(in: Data()) == nil)
  }

  /// A backoff too long for a `Duration` (which traps on overflow) is read as a century, more
  /// than any policy waits, so it is not retried; the process goes on.
  @Test func anOverlongBackoffIsReadAsACentury() {
    #expect(StackExchangeBackoff.requestedDelay(in: Data(#"{"backoff":1e30}"#.utf8)) == .century)
    #expect(
      StackExchangeBackoff.requestedDelay(in: Data(#"{"backoff":1.5}"#.utf8)) == .milliseconds(1500)
    )
  }

  @Test func aPolicyHonouringTheBackoffReadsItAndKeepsItsOtherSettings() throws {
    let base = RetryPolicy.exponential(maxAttempts: 4, initialDelay: .seconds(2), jitter: 0)
    let policy = base.honouringStackExchangeBackoff
    let reader = try #require(policy.serverRequestedDelay)
    #expect(reader(try response(), throttled) == .seconds(7))
    #expect(reader(try response(), Data()) == nil)
    #expect(policy.maxAttempts == 4 && policy.initialDelay == .seconds(2) && policy.jitter == 0)
    #expect(base.serverRequestedDelay == nil)
  }

  @Test func theQuestionsOperationReadsTheBackoff() throws {
    let operation = try FetchQuestionsOperation(
      query: QuestionsQuery(site: "stackoverflow"),
      baseURL: try #require(URL(string: "http://127.0.0.1:1")),
      session: URLSession.makeNetworkingSession(), decoder: JSONDecoder(), timeout: nil)
    let reader = try #require(operation.retryPolicy.serverRequestedDelay)
    #expect(reader(try response(status: 502), throttled) == .seconds(7))
    #expect(operation.retryPolicy.maxAttempts == 1, "one attempt, as before")
  }
}
