import FixtureServer
import Foundation
import OperationBridgeTesting
import OperationCore
import OperationNetworking
import TestSupport

@testable import StackExchange

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One session for every data manager test: sessions are made once and reused
/// (docs/PLATFORM-NOTES.md).
/// Its timeout, like the harness's default request timeout, leaves a loaded machine time to act
/// while a response is held back, and comes long after a test has seen its caller close the
/// connection.
let testSession = URLSession.makeNetworkingSession(timeout: .seconds(60))

/// A data manager wired to its own loopback fixture server and queue manager.
struct DataManagerHarness {
  let server: FixtureHTTPServer
  let manager: OperationQueueManager
  let dataManager: QuestionsDataManager

  /// A harness whose server answers with `responder`.
  init(
    session: URLSession = testSession,
    requestTimeout: Duration? = .seconds(60),
    backoffGate: BackoffGate? = nil,
    clock: some Clock<Duration> = ContinuousClock(),
    responder: @escaping @Sendable (FixtureRequest) -> FixtureResponse
  ) throws {
    server = try FixtureHTTPServer(responder: responder)
    manager = OperationQueueManager(name: "DataManagerTests", clock: clock)
    dataManager = QuestionsDataManager(
      manager: manager, baseURL: server.baseURL, session: session, decoder: JSONDecoder(),
      requestTimeout: requestTimeout, backoffGate: backoffGate)
  }

  /// A harness whose server is the StackExchange fixture.
  init(
    fixture: StackExchangeFixture, requestTimeout: Duration? = .seconds(60),
    backoffGate: BackoffGate? = nil
  ) throws {
    try self.init(
      requestTimeout: requestTimeout, backoffGate: backoffGate, responder: fixture.respond(to:))
  }

  /// A harness whose server is the StackExchange fixture and whose manager runs on `clock`, so
  /// that its backoffs do. Its requests have no timeout: the only timers on `clock` are the
  /// backoff waits.
  init(fixture: StackExchangeFixture, clock: TestClock) throws {
    try self.init(requestTimeout: nil, clock: clock, responder: fixture.respond(to:))
  }

  /// `/questions` requests the server has received.
  var questionRequests: Int { server.requestCount(path: "/questions") }
}

/// The default query of these tests.
let stackOverflow = QuestionsQuery(site: "stackoverflow", pageSize: 5)
