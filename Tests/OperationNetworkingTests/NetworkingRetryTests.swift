import FixtureServer
import Foundation
import LockedValue
import OperationBridgeTesting
import OperationCore
import OperationNetworking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Retries over real HTTP: which failures are sent again, how long the operation waits, and
/// that coalesced callers share the attempts.
@Suite struct NetworkingRetryTests {
  let manager = OperationQueueManager(name: "networking-retry")

  private func operation(
    _ server: FixtureHTTPServer, _ policy: RetryPolicy, path: String = "/flaky"
  ) -> NetworkingOperation<RetryPayload> {
    NetworkingOperation(
      request: URLRequest(url: server.url(path)), session: RetryFixtures.session,
      retryPolicy: policy)
  }

  @Test func twentyWaitersShareTheAttemptsAndTheServerSeesThreeRequests() async throws {
    let script = ScriptedResponder([
      .text("busy", status: 503), .text("busy", status: 503), RetryFixtures.success(attempt: 3),
    ])
    let server = try script.makeServer()
    defer { server.stop() }
    let events = EventLog(manager, hearing: .publishingThread)
    let results = Locked<[Result<RetryPayload, any Error>]>([])
    manager.isSuspended = true
    let operations = (0..<20).map { _ in operation(server, RetryFixtures.fastPolicy()) }
    for operation in operations {
      manager.enqueue(operation) { result in results.withLock { $0.append(result) } }
    }
    manager.isSuspended = false

    #expect(await eventually { results.withLock { $0.count } == 20 })
    let delivered = results.withLock { $0 }
    #expect(delivered.allSatisfy { (try? $0.get()) == RetryPayload(attempt: 3) })
    #expect(server.requestCount == 3, "the attempts are shared, not made per waiter")
    #expect(events.kinds(of: operations[0]).filter { $0 == .joined }.count == 19)
    #expect(events.retries(of: operations[0]).map(\.attempt) == [1, 2])
    #expect(await becomesIdle(manager))
  }

  @Test(arguments: [429, 502, 503, 504])
  func overloadStatusesAreRetried(status: Int) async throws {
    let script = ScriptedResponder([
      .text("overloaded", status: status), RetryFixtures.success(attempt: 2),
    ])
    let server = try script.makeServer()
    defer { server.stop() }
    let result = try #require(
      await enqueuedResult(of: operation(server, RetryFixtures.fastPolicy()), on: manager))
    #expect(try result.get() == RetryPayload(attempt: 2))
    #expect(server.requestCount == 2)
  }

  @Test(arguments: [400, 404])
  func otherStatusesAreDeliveredAtOnce(status: Int) async throws {
    let script = ScriptedResponder([
      .text("no", status: status), RetryFixtures.success(attempt: 2),
    ])
    let server = try script.makeServer()
    defer { server.stop() }
    let events = EventLog(manager, hearing: .publishingThread)
    let operation = operation(server, RetryFixtures.fastPolicy())
    let result = try #require(await enqueuedResult(of: operation, on: manager))
    #expect(result.failedStatus == status)
    #expect(server.requestCount == 1)
    #expect(events.retries(of: operation).isEmpty)
  }

  /// A transport failure the default policy retries, and the code it arrives with.
  enum TransportFault: CaseIterable, Sendable {
    case reset, closedWithoutResponse, timeout

    var response: FixtureResponse {
      switch self {
      case .reset:
        FixtureResponse(body: Data(repeating: 0x20, count: 4_096), fault: .resetMidBody)
      case .closedWithoutResponse: FixtureResponse(fault: .closeWithoutResponse)
      case .timeout: FixtureResponse(latency: .seconds(30))
      }
    }

    /// -1005 (connection lost), -1011 (how corelibs reports a close without a response), -1001.
    var code: URLError.Code {
      switch self {
      case .reset: .networkConnectionLost
      case .closedWithoutResponse: .badServerResponse
      case .timeout: .timedOut
      }
    }
  }

  @Test(arguments: TransportFault.allCases)
  func transportFailuresOfTheRetryableKindsAreRetried(fault: TransportFault) async throws {
    let script = ScriptedResponder([fault.response, RetryFixtures.success(attempt: 2)])
    let server = try script.makeServer()
    defer { server.stop() }
    var request = URLRequest(url: server.url("/flaky"))
    // Linux counts request timeouts in whole seconds: the shortest is one.
    request.timeoutInterval = 1
    let operation = NetworkingOperation<RetryPayload>(
      request: request, session: RetryFixtures.session, retryPolicy: RetryFixtures.fastPolicy())
    let events = EventLog(manager, hearing: .publishingThread)
    let result = try #require(await enqueuedResult(of: operation, on: manager))
    #expect(try result.get() == RetryPayload(attempt: 2))
    #expect(server.requestCount == 2)
    guard case .retrying(1, _)? = events.kinds(of: operation).dropFirst(2).first,
      let failure = events.retryFailures(of: operation).first
    else {
      Issue.record("no retrying event after the first attempt")
      return
    }
    #expect(failure.contains("\(fault.code.rawValue)"), "\(failure)")
  }

  @Test func exhaustedAttemptsDeliverTheLastFailure() async throws {
    let script = ScriptedResponder([
      .text("first", status: 503), .text("second", status: 502), .text("third", status: 504),
      RetryFixtures.success(attempt: 4),
    ])
    let server = try script.makeServer()
    defer { server.stop() }
    let result = try #require(
      await enqueuedResult(
        of: operation(server, RetryFixtures.fastPolicy(maxAttempts: 3)), on: manager))
    #expect(result.failedStatus == 504, "the third attempt's failure, not the first's")
    #expect(server.requestCount == 3)
  }

  /// The wait between attempts runs on the clock of the manager that admitted the operation:
  /// the next attempt goes out only once that clock reaches the delay.
  @Test func theWaitRunsOnTheClockOfTheManagerThatAdmittedTheOperation() async throws {
    let script = ScriptedResponder([
      .text("busy", status: 503), RetryFixtures.success(attempt: 2),
    ])
    let server = try script.makeServer()
    defer { server.stop() }
    let clock = TestClock()
    let manager = OperationQueueManager(name: "networking-retry.clock", clock: clock)
    let policy = RetryPolicy.exponential(
      maxAttempts: 2, initialDelay: .seconds(5), multiplier: 1, maxDelay: .seconds(60), jitter: 0)
    let retried = operation(server, policy)
    let result = Task { await enqueuedResult(of: retried, on: manager) }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .milliseconds(4_999))
    #expect(server.requestCount == 1)
    await clock.advance(by: .milliseconds(1))
    let outcome = try #require(await result.value)
    #expect(try outcome.get() == RetryPayload(attempt: 2))
    #expect(server.requestCount == 2)
    #expect(await becomesIdle(manager))
  }

  @Test func retryAfterSetsTheMinimumDelay() async throws {
    let busy = FixtureResponse(status: 503, headers: ["Retry-After": "2"], body: Data("busy".utf8))
    let script = ScriptedResponder([busy, RetryFixtures.success(attempt: 2)])
    let server = try script.makeServer()
    defer { server.stop() }
    let manualWaits = ManualRetryWaits(firesOnStart: true)
    let events = EventLog(manager, hearing: .publishingThread)
    let operation = operation(server, RetryFixtures.policy(waitingWith: manualWaits))
    let result = try #require(await enqueuedResult(of: operation, on: manager))
    #expect(try result.get() == RetryPayload(attempt: 2))
    #expect(manualWaits.startedDelays == [.seconds(2)], "the policy alone would wait 1 ms")
    #expect(events.retries(of: operation).map(\.delay) == [.seconds(2)])
  }

  /// A policy's body reader (an API's own way of asking for a wait, such as the StackExchange
  /// API's `backoff` field) sets the minimum delay, as `Retry-After` does.
  @Test func theBodyReadersDelaySetsTheMinimumDelay() async throws {
    let throttled = FixtureResponse.json(Data(#"{"wait_seconds":5}"#.utf8), status: 429)
    let script = ScriptedResponder([throttled, RetryFixtures.success(attempt: 2)])
    let server = try script.makeServer()
    defer { server.stop() }
    let manualWaits = ManualRetryWaits(firesOnStart: true)
    var policy = RetryFixtures.policy(waitingWith: manualWaits)
    policy.serverRequestedDelay = { response, body in
      guard response.statusCode == 429, body == Data(#"{"wait_seconds":5}"#.utf8) else {
        return nil
      }
      return .seconds(5)
    }
    let operation = operation(server, policy)
    let result = try #require(await enqueuedResult(of: operation, on: manager))
    #expect(try result.get() == RetryPayload(attempt: 2))
    #expect(manualWaits.startedDelays == [.seconds(5)])
  }

  /// Without a body reader, a body's own request for a wait is not this layer's to read.
  @Test func withoutABodyReaderTheBodyAsksForNoWait() async throws {
    let throttled = FixtureResponse.json(
      Data(#"{"error_id":502,"error_name":"throttle_violation","backoff":5}"#.utf8), status: 429)
    let script = ScriptedResponder([throttled, RetryFixtures.success(attempt: 2)])
    let server = try script.makeServer()
    defer { server.stop() }
    let manualWaits = ManualRetryWaits(firesOnStart: true)
    let operation = operation(server, RetryFixtures.policy(waitingWith: manualWaits))
    let result = try #require(await enqueuedResult(of: operation, on: manager))
    #expect(try result.get() == RetryPayload(attempt: 2))
    #expect(manualWaits.startedDelays == [.milliseconds(1)], "the policy's own delay")
  }

  @Test func aServerAskingForMoreThanTheCapGetsTheFailureAtOnce() async throws {
    let busy = FixtureResponse(status: 503, headers: ["Retry-After": "3600"], body: Data())
    let script = ScriptedResponder([busy, RetryFixtures.success(attempt: 2)])
    let server = try script.makeServer()
    defer { server.stop() }
    let manualWaits = ManualRetryWaits(firesOnStart: true)
    let operation = operation(server, RetryFixtures.policy(waitingWith: manualWaits))
    let result = try #require(await enqueuedResult(of: operation, on: manager))
    #expect(result.failedStatus == 503)
    #expect(manualWaits.waits.isEmpty)
    #expect(server.requestCount == 1)
  }

  @Test func eventsShowEachRetryInOrderWithItsAttemptAndDelay() async throws {
    let script = ScriptedResponder([
      .text("busy", status: 503), .text("busy", status: 503), RetryFixtures.success(attempt: 3),
    ])
    let server = try script.makeServer()
    defer { server.stop() }
    let events = EventLog(manager, hearing: .publishingThread)
    let operation = operation(server, RetryFixtures.fastPolicy())
    let result = try #require(await enqueuedResult(of: operation, on: manager))
    #expect(try result.get() == RetryPayload(attempt: 3))
    let kinds = events.kinds(of: operation)
    let failures = events.retryFailures(of: operation)
    guard kinds.count == 5, case .retrying(1, .milliseconds(1)) = kinds[2],
      case .retrying(2, .milliseconds(2)) = kinds[3], failures.count == 2
    else {
      Issue.record("unexpected events: \(kinds)")
      return
    }
    #expect(kinds[0] == .enqueued && kinds[1] == .started && kinds[4] == .finished(.success))
    #expect(failures.allSatisfy { $0.contains("HTTP 503") }, "\(failures)")
  }

  @Test func noPolicyMeansOneAttempt() async throws {
    let script = ScriptedResponder([
      .text("busy", status: 503), RetryFixtures.success(attempt: 2),
    ])
    let server = try script.makeServer()
    defer { server.stop() }
    let operation = NetworkingOperation<RetryPayload>(
      request: URLRequest(url: server.url("/flaky")), session: RetryFixtures.session)
    let result = try #require(await enqueuedResult(of: operation, on: manager))
    #expect(result.failedStatus == 503)
    #expect(server.requestCount == 1)
  }
}
