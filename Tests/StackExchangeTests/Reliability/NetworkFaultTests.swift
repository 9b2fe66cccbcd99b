import AsyncBridge
import Dispatch
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

/// The StackExchange fixture's answer for `request`, with `fault` applied.
private func faulty(_ fault: FixtureResponse.Fault) -> @Sendable (FixtureRequest) -> FixtureResponse
{
  { request in
    var response = StackExchangeFixture().respond(to: request)
    response.fault = fault
    return response
  }
}

/// Expects `error` to be a `NetworkingError.transport` that is neither a cancellation nor a
/// timeout (the faults below are neither).
private func expectTransportFailure(
  _ error: any Error, sourceLocation: SourceLocation = #_sourceLocation
) {
  guard case .transport(let urlError)? = error as? NetworkingError else {
    Issue.record("expected a transport error, got \(error)", sourceLocation: sourceLocation)
    return
  }
  #expect(
    urlError.code != .cancelled && urlError.code != .timedOut, "\(urlError)",
    sourceLocation: sourceLocation)
}

/// Each network fault, met at once by the three kinds of caller: the data manager's async API,
/// its completion-handler API, and its operation enqueued on the manager directly. Each must
/// end in a typed error for every caller, a finished operation and an idle manager.
@Suite struct NetworkFaultTests {
  /// What the three callers of one fault got.
  struct FaultRun {
    let harness: DataManagerHarness
    let events: EventLog
    let operation: FetchQuestionsOperation
    let results: [Result<QuestionsPage, any Error>?]

    /// Expects every caller resumed with an error, the operations finished with `completion`
    /// and the manager idle; returns the three errors.
    func errors(
      finishedAs completion: OperationEvent.Completion,
      sourceLocation: SourceLocation = #_sourceLocation
    ) async -> [any Error] {
      let errors = results.compactMap { failure(of: $0, sourceLocation: sourceLocation) }
      #expect(errors.count == 3, sourceLocation: sourceLocation)
      #expect(operation.isFinished, sourceLocation: sourceLocation)
      #expect(!operation.isExecuting, sourceLocation: sourceLocation)
      #expect(await becomesIdle(harness.manager), sourceLocation: sourceLocation)
      #expect(harness.manager.outstandingOperationCount == 0, sourceLocation: sourceLocation)
      // One request per caller (distinct pages), each reported finished once, as expected.
      let events = events
      #expect(await eventually { events.finishedEvents.count == 3 }, sourceLocation: sourceLocation)
      #expect(events.count(of: .enqueued) == 3, sourceLocation: sourceLocation)
      #expect(
        events.finishedEvents.map(\.kind) == Array(repeating: .finished(completion), count: 3),
        sourceLocation: sourceLocation)
      return errors
    }
  }

  /// Meets the fault `responder` answers with, from the three callers at once. With a `clock`,
  /// the manager runs on it and the request timeouts fall due once all three requests reached
  /// the server, however slowly the machine runs.
  private func meet(
    session: URLSession = testSession, requestTimeout: Duration? = .seconds(60),
    clock: TestClock? = nil,
    _ responder: @escaping @Sendable (FixtureRequest) -> FixtureResponse
  ) async throws -> FaultRun {
    let harness =
      try clock.map {
        try DataManagerHarness(
          session: session, requestTimeout: requestTimeout, clock: $0, responder: responder)
      }
      ?? DataManagerHarness(session: session, requestTimeout: requestTimeout, responder: responder)
    let events = EventLog(harness.manager)
    let dataManager = harness.dataManager
    let manager = harness.manager
    let operation = try dataManager.makeOperation(
      for: QuestionsQuery(site: "stackoverflow", pageSize: 5, page: 3))
    async let awaited = asyncResult(
      dataManager, QuestionsQuery(site: "stackoverflow", pageSize: 5, page: 1))
    async let handled = handlerResult(
      dataManager, QuestionsQuery(site: "stackoverflow", pageSize: 5, page: 2))
    async let direct = completing {
      await withCheckedContinuation { continuation in
        manager.enqueue(operation) { continuation.resume(returning: $0) }
      }
    }
    if let clock, let requestTimeout {
      #expect(await harness.server.waitForRequests(3, timeout: .seconds(30)))
      try await clock.waitUntilTimers(3)
      await clock.advance(by: requestTimeout)
    }
    let results = await [awaited, handled, direct]
    return FaultRun(harness: harness, events: events, operation: operation, results: results)
  }

  // MARK: Faults

  @Test func connectionResetMidBodyIsATransportError() async throws {
    let run = try await meet(faulty(.resetMidBody))
    for error in await run.errors(finishedAs: .failure) {
      // Linux 6.3.1: -1005, network connection lost.
      expectTransportFailure(error)
    }
  }

  @Test func slowDripPastTheRequestTimeoutIsATimeoutAndClosesTheConnection() async throws {
    // Data keeps arriving (the session's idle timeout never fires), too slowly to end within
    // the data manager's request timeout.
    let run = try await meet(requestTimeout: .milliseconds(500), clock: TestClock()) { request in
      var response = StackExchangeFixture().respond(to: request)
      response.fault = .slowDrip(interval: .milliseconds(50))
      return response
    }
    for error in await run.errors(finishedAs: .timedOut) {
      #expect(error is OperationTimeoutError, "got \(error)")
    }
    #expect(run.operation.isCancelled)
    // Every request was abandoned: the data tasks were cancelled, not left dripping.
    #expect(await run.harness.server.waitForAbandonedResponses(3, timeout: .seconds(30)))
  }

  @Test func slowDripPastTheSessionTimeoutIsATransportTimeout() async throws {
    // Linux URLSession's timeout restarts with every byte: pauses longer than it expire it.
    let run = try await meet(session: impatientSession) { request in
      var response = StackExchangeFixture().respond(to: request)
      response.fault = .slowDrip(interval: .milliseconds(1_500))
      return response
    }
    for error in await run.errors(finishedAs: .failure) {
      guard case .transport(let urlError)? = error as? NetworkingError else {
        Issue.record("expected a transport error, got \(error)")
        continue
      }
      #expect(urlError.code == .timedOut)
    }
  }

  @Test func bodyShorterThanItsContentLengthIsATransportError() async throws {
    let run = try await meet(faulty(.shortBody))
    for error in await run.errors(finishedAs: .failure) {
      // Linux 6.3.1: -1, "transfer closed with N bytes remaining".
      expectTransportFailure(error)
    }
  }

  @Test func truncatedGzipWithAMatchingLengthArrivesAsPartialDataAndIsUndecodable() async throws {
    let run = try await meet(faulty(.truncatedGzip))
    for error in await run.errors(finishedAs: .failure) {
      guard case .undecodable(_, let excerpt)? = error as? NetworkingError else {
        Issue.record("expected undecodable, got \(error)")
        continue
      }
      // The decoded prefix of the real page arrived with status 200 and no error.
      #expect(excerpt.hasPrefix("{"), "\(excerpt)")
    }
  }

  @Test func corruptGzipIsATransportError() async throws {
    let run = try await meet(faulty(.corruptGzip))
    for error in await run.errors(finishedAs: .failure) {
      // Linux 6.3.1: -1, "error while processing content unencoding".
      expectTransportFailure(error)
    }
  }

  @Test func connectionClosedWithoutAResponseIsATransportError() async throws {
    let run = try await meet(faulty(.closeWithoutResponse))
    for error in await run.errors(finishedAs: .failure) {
      // Linux 6.3.1: -1011, bad server response.
      expectTransportFailure(error)
    }
  }

  @Test func htmlWithStatus200IsUndecodable() async throws {
    let html = "<!DOCTYPE html><html><head><title>Maintenance</title></head></html>"
    let run = try await meet { _ in .html(html) }
    for error in await run.errors(finishedAs: .failure) {
      guard case .undecodable(_, let excerpt)? = error as? NetworkingError else {
        Issue.record("expected undecodable, got \(error)")
        continue
      }
      #expect(excerpt == html)
    }
  }

  @Test func bodyAboveTheOperationsSizeCapIsResponseTooLarge() async throws {
    let limit = 1_024
    let body = Data(#"{"items":[],"padding":"\#(String(repeating: "x", count: 8_000))"}"#.utf8)
    let server = try FixtureHTTPServer { _ in .json(body) }
    let manager = OperationQueueManager(name: "fault.sizeCap")
    @Sendable func makeOperation(page: Int) -> NetworkingOperation<QuestionsPage> {
      NetworkingOperation(
        request: URLRequest(url: server.url("/questions?page=\(page)")), session: testSession,
        maxResponseBytes: limit)
    }
    let direct = makeOperation(page: 1)
    async let handled = completing {
      await withCheckedContinuation { continuation in
        manager.enqueue(direct) { continuation.resume(returning: $0) }
      }
    }
    async let awaited = completing {
      await Result { try await manager.perform(makeOperation(page: 2)) }
    }

    for result in await [handled, awaited] {
      guard case .responseTooLarge(body.count, limit)? = result?.networkingError else {
        Issue.record(
          "expected responseTooLarge(\(body.count), \(limit)), got \(String(describing: result))")
        continue
      }
    }
    #expect(direct.isFinished)
    #expect(await becomesIdle(manager))
  }

  @Test func bodyAboveTheDataManagersTenMebibyteCapIsResponseTooLarge() async throws {
    let limit = 10 * 1024 * 1024
    let padding = String(repeating: "x", count: limit)
    let body = Data(#"{"items":[],"has_more":false,"padding":"\#(padding)"}"#.utf8)
    let harness = try DataManagerHarness { _ in .json(body) }
    let events = EventLog(harness.manager)

    let result = await completing(within: .seconds(30)) {
      await Result { try await harness.dataManager.questions(stackOverflow) }
    }

    guard case .responseTooLarge(body.count, limit)? = result?.networkingError else {
      Issue.record(
        "expected responseTooLarge(\(body.count), \(limit)), got \(String(describing: result))")
      return
    }
    #expect(await becomesIdle(harness.manager))
    #expect(await eventually { events.finishedEvents.map(\.kind) == [.finished(.failure)] })
  }

  // MARK: Cancellation racing a failing connection

  /// How the race's requests fail.
  enum FailingConnection: String, CaseIterable, Sendable {
    case refused
    case resetMidBody
  }

  /// `URLSessionTask.cancel()` racing a failing connection crashes swift-corelibs-foundation
  /// 6.3.1 with a URL-cached session (docs/PLATFORM-NOTES.md). With the session the package
  /// recommends, 1,000 rounds of cancellation (the operation's, or its awaiting task's, from
  /// another queue after a random short delay) against a failing connection must neither
  /// crash nor deliver twice, and every caller gets cancellation or the transport error.
  @Test(.timeLimit(.minutes(2)), arguments: FailingConnection.allCases)
  func cancellationRacingAFailingConnectionDeliversExactlyOnce(
    connection: FailingConnection
  ) async throws {
    let rounds = 1_000
    let refusing = try LoopbackSocket.bound(listening: false)
    defer { refusing.closeSocket() }
    let server = try FixtureHTTPServer(responder: faulty(.resetMidBody))
    let baseURL =
      connection == .refused ? URL(string: "http://127.0.0.1:\(refusing.port)")! : server.baseURL
    let manager = OperationQueueManager(name: "fault.race.\(connection)")
    let events = EventLog(manager)
    let race = CancellationRace(
      manager: manager, baseURL: baseURL, seed: connection == .refused ? 0x5EED : 0xC0FFEE)

    let window = await race.measureFailureTime()
    let tally = await race.run(rounds: rounds, lanes: 4, window: window)

    #expect(await becomesIdle(manager))
    // Late second deliveries would show up here.
    try await Task.sleep(for: .milliseconds(50))
    let final = race.tally
    #expect(tally.rounds == rounds)
    #expect(final.hangs == 0, "\(final.hangs) rounds never delivered")
    #expect(final.deliveries.count == rounds)
    #expect(final.deliveries.values.allSatisfy { $0 == 1 }, "a round delivered twice")
    #expect(final.other.isEmpty, "\(final.other.prefix(3))")
    #expect(final.cancelled + final.failed == rounds)
    // Both sides of the race were hit, or the test no longer races anything.
    #expect(final.cancelled >= 10 && final.failed >= 10, "\(final.cancelled), \(final.failed)")
    // Delivered first, finished once the queue lets go: every operation that was enqueued
    // (a task cancelled before it called `perform` enqueues nothing).
    let enqueued = events.operationIDs(with: .enqueued)
    #expect(enqueued.count >= rounds / 2)
    #expect(
      await eventually(within: .seconds(30)) {
        race.unfinishedOperations.allSatisfy { !enqueued.contains(ObjectIdentifier($0)) }
      })
    print(
      "cancellation race (\(connection)): \(rounds) rounds, \(final.cancelled) cancelled first, "
        + "\(final.failed) failed first, \(rounds + 9 - enqueued.count) never enqueued, "
        + "window \(window) µs at first, \(Int(final.window)) µs at last")
  }
}
