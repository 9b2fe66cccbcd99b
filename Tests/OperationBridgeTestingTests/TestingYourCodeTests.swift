import FixtureServer
import Foundation
import OperationBridgeTesting
import OperationCore
import OperationNetworking
import StackExchange
import Synchronization
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The tests of the "Testing your code" article, each function as the article shows it. Nothing
// here sleeps: the clock moves only when a test advances it.

/// A lookup that answers only when cancelled, like a server that is slow today. `nonisolated`,
/// as every subclass is, so that it compiles in a module that is MainActor by default too.
nonisolated final class SlowLookup: ConcurrentOperation<String, any Error>, @unchecked Sendable {}

@Test func aCallerLeavesAtItsDeadline() async throws {
  let clock = TestClock()
  let manager = OperationQueueManager(name: "deadline", clock: clock)
  let lookup = SlowLookup()
  let call = Task { try await manager.perform(lookup, timeout: .seconds(30)) }
  try await clock.waitUntilTimers(1)  // the caller's deadline is set

  await clock.advance(by: .seconds(29))
  #expect(!lookup.isCancelled)
  await clock.advance(by: .seconds(1))
  // The caller has left; nobody else waited, so the lookup was cancelled.
  #expect(lookup.isCancelled)
  await #expect(throws: OperationTimeoutError.self) { try await call.value }
}

/// What the status endpoint answers. `nonisolated`, so that its `Decodable` conformance is not
/// main-actor isolated in a module that is MainActor by default, where the decoding needs it.
nonisolated struct ServiceStatus: Decodable, Equatable {
  let status: String
}

/// Counts the requests a stub server answered.
final class RequestCounter: Sendable {
  private let count = Mutex(0)

  /// Counts one more request and returns how many there were.
  func next() -> Int {
    count.withLock { count in
      count += 1
      return count
    }
  }
}

@Test func aRetryWaitsAsLongAsTheServerAsks() async throws {
  let clock = TestClock()
  let manager = OperationQueueManager(name: "retry", clock: clock)
  let served = RequestCounter()
  let server = try FixtureHTTPServer { _ in
    // The first request is told to come back in 5 seconds; the next one succeeds.
    served.next() == 1
      ? FixtureResponse(status: 503, headers: ["Retry-After": "5"])
      : .json(Data(#"{"status": "ok"}"#.utf8))
  }
  defer { server.stop() }
  let status = NetworkingOperation<ServiceStatus>(
    request: URLRequest(url: server.url("/status")), session: .makeNetworkingSession(),
    retryPolicy: .exponential(maxAttempts: 3, initialDelay: .seconds(1), jitter: 0))
  let call = Task { try await manager.perform(status) }
  try await clock.waitUntilTimers(1)  // the first attempt failed: the wait has begun

  await clock.advance(by: .seconds(4))
  #expect(server.requestCount == 1)  // the policy's 1 s is over, the server's 5 s are not
  await clock.advance(by: .seconds(1))  // the second attempt is sent now
  #expect(try await call.value == ServiceStatus(status: "ok"))
  #expect(server.requestCount == 2)
}

@Test func aPageSequenceWaitsOutTheServersBackoff() async throws {
  let clock = TestClock()
  let manager = OperationQueueManager(name: "pages", clock: clock)
  let fixture = StackExchangeFixture(pageBackoffs: [1: 10])  // page 1 says "backoff": 10
  let server = try FixtureHTTPServer(responder: fixture.respond(to:))
  defer { server.stop() }
  let questions = QuestionsDataManager(
    manager: manager, baseURL: server.baseURL,
    requestTimeout: nil)  // no request timeout: the backoff is the only timer
  let query = QuestionsQuery(site: "stackoverflow", pageSize: 10)
  var pages = questions.pages(query, maxPages: 2).makeAsyncIterator()

  let first = try #require(try await pages.next())
  #expect(first.page.backoff == 10)
  try await clock.waitUntilTimers(1)  // page 2 waits out the backoff
  try await manager.waitUntilIdle(within: .seconds(30))  // page 1's request is done

  await clock.advance(by: .seconds(9))
  #expect(manager.isIdle)  // page 2 is not requested yet
  await clock.advance(by: .seconds(1))
  #expect(!manager.isIdle)  // page 2's request is admitted now
  let second = try #require(try await pages.next())
  #expect(second.number == 2)
  #expect(second.backoffWait == .seconds(10))
}
