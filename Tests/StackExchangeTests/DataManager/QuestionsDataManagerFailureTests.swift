import FixtureServer
import Foundation
import OperationBridgeTesting
import OperationCore
import OperationNetworking
import TestSupport
import Testing

@testable import StackExchange

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A session whose requests time out after one second without data.
private let impatientSession = URLSession.makeNetworkingSession(timeout: .seconds(1))

/// The fixture's answer for `request`, with `fault` applied.
private func fixtureResponse(
  _ request: FixtureRequest, fault: FixtureResponse.Fault
) -> FixtureResponse {
  var response = StackExchangeFixture().respond(to: request)
  response.fault = fault
  return response
}

@Suite struct QuestionsDataManagerFailureTests {
  @Test func apiErrorBodyIsSurfacedWithItsStatus() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture())
    let query = QuestionsQuery(site: "nosuchsite")
    let expected = StackExchangeAPIError(
      errorID: 400, errorMessage: "No site found for name `nosuchsite`",
      errorName: "bad_parameter")

    for result in [
      await asyncResult(harness.dataManager, query),
      await handlerResult(harness.dataManager, query),
    ] {
      let error = try #require(failure(of: result) as? NetworkingError)
      guard case .badStatus(let status, _, _) = error else {
        Issue.record("expected a bad status, got \(error)")
        continue
      }
      #expect(status == 400)
      #expect(error.stackExchangeAPIError == expected)
    }
  }

  @Test func serverErrorWithAnHTMLPageIsABadStatusWithoutAPIError() async throws {
    let harness = try DataManagerHarness { _ in
      .html("<html><body><h1>503 Service Unavailable</h1></body></html>", status: 503)
    }

    let error = try #require(
      failure(of: await asyncResult(harness.dataManager, stackOverflow)) as? NetworkingError)

    guard case .badStatus(503, nil, let excerpt) = error else {
      Issue.record("expected a 503 without an API error, got \(error)")
      return
    }
    #expect(excerpt.contains("503 Service Unavailable"))
    #expect(error.stackExchangeAPIError == nil)
  }

  @Test func emptyBodyIsNoData() async throws {
    let harness = try DataManagerHarness { _ in .json(Data()) }

    let error = try #require(
      failure(of: await asyncResult(harness.dataManager, stackOverflow)) as? NetworkingError)

    guard case .noData(statusCode: 200) = error else {
      Issue.record("expected noData(200), got \(error)")
      return
    }
  }

  @Test func truncatedGzipBodyIsUndecodable() async throws {
    let harness = try DataManagerHarness { fixtureResponse($0, fault: .truncatedGzip) }

    let error = try #require(
      failure(of: await asyncResult(harness.dataManager, stackOverflow)) as? NetworkingError)

    guard case .undecodable = error else {
      Issue.record("expected undecodable, got \(error)")
      return
    }
  }

  @Test func bodyShorterThanItsContentLengthIsATransportError() async throws {
    let harness = try DataManagerHarness { fixtureResponse($0, fault: .shortBody) }

    let error = try #require(
      failure(of: await asyncResult(harness.dataManager, stackOverflow)) as? NetworkingError)

    guard case .transport = error else {
      Issue.record("expected a transport error, got \(error)")
      return
    }
  }

  @Test(arguments: [
    #"{"items": [{"question_id": 1, "#,
    #"{"items": "none", "has_more": false}"#,
    "[]",
  ])
  func invalidJSONIsUndecodable(body: String) async throws {
    let harness = try DataManagerHarness { _ in .json(Data(body.utf8)) }

    let error = try #require(
      failure(of: await asyncResult(harness.dataManager, stackOverflow)) as? NetworkingError)

    guard case .undecodable(_, let excerpt) = error else {
      Issue.record("expected undecodable, got \(error)")
      return
    }
    #expect(excerpt == body)
  }

  @Test func htmlWhereJSONWasExpectedIsUndecodable() async throws {
    let html = "<!DOCTYPE html><html><head><title>Stack Exchange</title></head></html>"
    let harness = try DataManagerHarness { _ in .html(html) }

    let error = try #require(
      failure(of: await asyncResult(harness.dataManager, stackOverflow)) as? NetworkingError)

    guard case .undecodable(_, let excerpt) = error else {
      Issue.record("expected undecodable, got \(error)")
      return
    }
    #expect(excerpt.hasPrefix("<!DOCTYPE html>"))
  }

  @Test func refusedConnectionIsATransportError() async throws {
    // Bound but not listening: refused for as long as it lives, unlike a stopped server's port,
    // which another test's socket can take over.
    let refusing = try LoopbackSocket.bound(listening: false)
    defer { refusing.closeSocket() }
    let dataManager = QuestionsDataManager(
      manager: OperationQueueManager(name: "refused"),
      baseURL: URL(string: "http://127.0.0.1:\(refusing.port)")!, session: testSession,
      decoder: JSONDecoder())

    let error = try #require(
      failure(of: await asyncResult(dataManager, stackOverflow)) as? NetworkingError)

    guard case .transport(let urlError) = error else {
      Issue.record("expected a transport error, got \(error)")
      return
    }
    #expect(urlError.code == .cannotConnectToHost)
  }

  @Test func sessionTimeoutIsATransportError() async throws {
    let harness = try DataManagerHarness(session: impatientSession) { request in
      var response = StackExchangeFixture().respond(to: request)
      response.latency = .seconds(5)
      return response
    }

    let error = try #require(
      failure(of: await asyncResult(harness.dataManager, stackOverflow)) as? NetworkingError)

    guard case .transport(let urlError) = error else {
      Issue.record("expected a transport error, got \(error)")
      return
    }
    #expect(urlError.code == .timedOut)
  }

  /// The request timeout runs on the manager's clock, which moves only once the request has
  /// reached the server: however slowly the machine runs, there is a response to abandon.
  @Test func requestTimeoutFailsTheCallAndAbandonsTheRequest() async throws {
    let clock = TestClock()
    let fixture = StackExchangeFixture(latency: .seconds(60))
    let harness = try DataManagerHarness(
      requestTimeout: .milliseconds(300), clock: clock, responder: fixture.respond(to:))

    let call = Task { await asyncResult(harness.dataManager, stackOverflow) }
    #expect(await harness.server.waitForRequests(1, timeout: .seconds(30)))
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .milliseconds(300))
    let error = failure(of: await call.value)

    #expect(error is OperationTimeoutError, "got \(String(describing: error))")
    #expect(await harness.server.waitForAbandonedResponses(1, timeout: .seconds(30)))
  }

  @Test func invalidQueryFailsTypedWithoutARequest() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture())
    let query = QuestionsQuery(site: "stackoverflow", pageSize: 0)

    let asyncError = failure(of: await asyncResult(harness.dataManager, query))
    let handlerError = failure(of: await handlerResult(harness.dataManager, query))

    #expect(asyncError as? QueryError == .pageSizeOutOfRange(0))
    #expect(handlerError as? QueryError == .pageSizeOutOfRange(0))
    #expect(harness.manager.isIdle)
    #expect(harness.server.requestCount == 0)
  }

  @Test func invalidBaseURLFailsTypedWithoutARequest() async throws {
    let baseURL = try #require(URL(string: "ftp://example.com/2.3"))
    let dataManager = QuestionsDataManager(
      manager: OperationQueueManager(), baseURL: baseURL, session: testSession)

    let error = failure(of: await asyncResult(dataManager, stackOverflow))

    #expect(error as? QueryError == .invalidBaseURL(baseURL))
  }
}
