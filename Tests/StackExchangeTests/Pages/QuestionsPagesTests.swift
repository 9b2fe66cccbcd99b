import AsyncBridge
import FixtureServer
import Foundation
import OperationBridgeTesting
import OperationCore
import OperationNetworking
import TestSupport
import Testing

@testable import StackExchange

/// Ten questions a page: the fixture's 30 questions make three pages.
private let tenPerPage = QuestionsQuery(site: "stackoverflow", pageSize: 10)

@Suite struct QuestionsPagesTests {
  @Test func followsHasMoreAcrossThreePages() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture())

    let outcome = await completing {
      await collect(harness.dataManager.pages(tenPerPage, maxPages: 10))
    }

    #expect(outcome?.error == nil)
    #expect(outcome?.numbers == [1, 2, 3])
    #expect(outcome?.pages.map(\.page.hasMore) == [true, true, false])
    #expect(outcome?.pages.map(\.page.items.count) == [10, 10, 10])
    #expect(outcome?.pages.map(\.page.quotaRemaining) == [299, 298, 297])
    #expect(outcome?.pages.map(\.backoffWait) == [.zero, .zero, .zero])
    #expect(outcome?.endsWithNil == true)
    #expect(harness.questionRequests == 3)
  }

  @Test func stopsAtTheMaximumStartingAtTheQueryPage() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture())
    let query = QuestionsQuery(site: "stackoverflow", pageSize: 5, page: 2)

    let outcome = await completing { await collect(harness.dataManager.pages(query, maxPages: 2)) }
    let idle = await becomesIdle(harness.manager)

    #expect(outcome?.error == nil)
    #expect(outcome?.numbers == [2, 3])
    #expect(outcome?.pages.map(\.page.hasMore) == [true, true])
    #expect(idle)
    #expect(harness.questionRequests == 2)
  }

  /// A server that says `has_more` on page `Int.max` gets no request for the page after it:
  /// the sequence ends there (counting on would overflow).
  @Test func theSequenceEndsAtPageIntMax() async throws {
    let body = Data(#"{"items":[],"has_more":true,"quota_max":300,"quota_remaining":299}"#.utf8)
    let harness = try DataManagerHarness { _ in FixtureResponse(body: body) }
    let query = QuestionsQuery(site: "stackoverflow", page: .max)

    let outcome = await completing { await collect(harness.dataManager.pages(query, maxPages: 3)) }

    #expect(outcome?.error == nil)
    #expect(outcome?.numbers == [.max])
    #expect(outcome?.endsWithNil == true)
    #expect(harness.questionRequests == 1)
  }

  @Test func noPagesAreRequestedForAMaximumOfZero() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture())

    let outcome = await completing {
      await collect(harness.dataManager.pages(tenPerPage, maxPages: 0))
    }

    #expect(outcome?.numbers == [])
    #expect(outcome?.error == nil)
    #expect(harness.questionRequests == 0)
  }

  @Test func waitsForABackoffBeforeTheNextRequestAndReportsIt() async throws {
    let clock = TestClock()
    let harness = try DataManagerHarness(
      fixture: StackExchangeFixture(pageBackoffs: [2: 1]), clock: clock)

    let consumer = Task { await collect(harness.dataManager.pages(tenPerPage, maxPages: 5)) }
    try await clock.waitUntilTimers(1)
    let requestsDuringTheWait = harness.questionRequests
    let singleCall = failure(of: await asyncResult(harness.dataManager, tenPerPage))
    await clock.advance(by: .milliseconds(999))
    let stillWaiting = clock.pendingTimers == 1 && harness.questionRequests == 2
    await clock.advance(by: .milliseconds(1))
    let outcome = await completing { await consumer.value }

    #expect(requestsDuringTheWait == 2)
    #expect(
      singleCall as? BackoffError == BackoffError(site: "stackoverflow", retryAfter: .seconds(1)))
    #expect(stillWaiting)
    #expect(outcome?.error == nil)
    #expect(outcome?.numbers == [1, 2, 3])
    #expect(outcome?.pages.map(\.page.backoff) == [nil, 1, nil])
    #expect(outcome?.pages.map(\.backoffWait) == [.zero, .zero, .seconds(1)])
    #expect(harness.questionRequests == 3)
  }

  /// A backoff longer than the limit is not waited out: the page that announced it is
  /// delivered, then the sequence ends with `BackoffError`, no clock sleep ever begun.
  @Test(arguments: [
    (backoff: 61, limit: nil as Duration?), (backoff: 5, limit: .seconds(4) as Duration?),
  ])
  func aBackoffLongerThanTheLimitEndsTheSequence(backoff: Int, limit: Duration?) async throws {
    let clock = TestClock()
    let harness = try DataManagerHarness(
      fixture: StackExchangeFixture(pageBackoffs: [1: backoff]), clock: clock)
    let pages =
      limit.map { harness.dataManager.pages(tenPerPage, maxPages: 5, maxBackoffWait: $0) }
      ?? harness.dataManager.pages(tenPerPage, maxPages: 5)

    let outcome = await completing { await collect(pages) }

    #expect(outcome?.numbers == [1])
    #expect(
      outcome?.error as? BackoffError
        == BackoffError(site: "stackoverflow", retryAfter: .seconds(backoff)))
    #expect(outcome?.endsWithNil == true)
    #expect(clock.pendingTimers == 0)
    #expect(harness.questionRequests == 1)
  }

  /// A backoff of exactly the limit is waited out.
  @Test func aBackoffOfExactlyTheLimitIsWaitedOut() async throws {
    let clock = TestClock()
    let harness = try DataManagerHarness(
      fixture: StackExchangeFixture(pageBackoffs: [1: 4]), clock: clock)

    let consumer = Task {
      await collect(harness.dataManager.pages(tenPerPage, maxPages: 2, maxBackoffWait: .seconds(4)))
    }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(4))
    let outcome = await completing { await consumer.value }

    #expect(outcome?.error == nil)
    #expect(outcome?.numbers == [1, 2])
    #expect(outcome?.pages.map(\.backoffWait) == [.zero, .seconds(4)])
  }

  @Test func waitsOutABackoffThatASingleCallReceived() async throws {
    let clock = TestClock()
    let fixture = StackExchangeFixture(backoff: 30)
    let harness = try DataManagerHarness(fixture: fixture, clock: clock)
    _ = success(of: await asyncResult(harness.dataManager, stackOverflow))
    fixture.backoff = nil

    let consumer = Task { await collect(harness.dataManager.pages(tenPerPage, maxPages: 1)) }
    try await clock.waitUntilTimers(1)
    let requestsDuringTheWait = harness.questionRequests
    await clock.advance(by: .seconds(30))
    let outcome = await completing { await consumer.value }

    #expect(requestsDuringTheWait == 1)
    #expect(outcome?.numbers == [1])
    #expect(outcome?.pages.first?.backoffWait == .seconds(30))
    #expect(harness.questionRequests == 2)
  }

  @Test func cancellingDuringTheBackoffWaitEndsTheSequenceAtOnce() async throws {
    let clock = TestClock()
    let harness = try DataManagerHarness(
      fixture: StackExchangeFixture(pageBackoffs: [1: 60]), clock: clock)

    let consumer = Task { await collect(harness.dataManager.pages(tenPerPage, maxPages: 5)) }
    try await clock.waitUntilTimers(1)
    consumer.cancel()
    // The test clock never reaches the deadline: only cancellation can end the wait.
    let outcome = await completing(within: .seconds(30)) { await consumer.value }
    let sleeperGone = await eventually(within: .seconds(30)) { clock.pendingTimers == 0 }

    #expect(outcome?.numbers == [1])
    #expect(outcome?.error is CancellationError)
    #expect(outcome?.endsWithNil == true)
    #expect(sleeperGone)
    #expect(harness.questionRequests == 1)
  }

  @Test func cancellingTheConsumerDuringARequestClosesTheConnection() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture(latency: .seconds(60)))

    let consumer = Task { await collect(harness.dataManager.pages(tenPerPage, maxPages: 3)) }
    let requested = await harness.server.waitForRequests(
      1, path: "/questions", timeout: .seconds(30))
    consumer.cancel()
    let outcome = await completing(within: .seconds(30)) { await consumer.value }
    // Well within the session's and the request's 60 s timeouts, which would close it too.
    let closed = await harness.server.waitForAbandonedResponses(1, timeout: .seconds(30))

    #expect(requested)
    #expect(outcome?.numbers == [])
    #expect(outcome?.error is CancellationError)
    #expect(closed)
    #expect(harness.questionRequests == 1)
  }

  @Test func breakingOutOfTheLoopCancelsTheNextPagesRequest() async throws {
    let fixture = StackExchangeFixture()
    let harness = try DataManagerHarness { request in
      var response = fixture.respond(to: request)
      if request.query["page"] != "1" { response.latency = .seconds(60) }
      return response
    }

    let firstPage = await completing { () -> (number: Int, nextRequested: Bool)? in
      do {
        for try await fetched in harness.dataManager.pages(tenPerPage, maxPages: 3) {
          // The request for page 2 went out when page 1 was delivered.
          let nextRequested = await harness.server.waitForRequests(
            2, path: "/questions", timeout: .seconds(30))
          return (fetched.number, nextRequested)
        }
      } catch {
        Issue.record("unexpected error \(error)")
      }
      return nil
    }
    // Well within the session's and the request's 60 s timeouts, which would close it too.
    let closed = await harness.server.waitForAbandonedResponses(1, timeout: .seconds(30))

    #expect(firstPage??.number == 1)
    #expect(firstPage??.nextRequested == true)
    #expect(closed)
    #expect(harness.questionRequests == 2)
  }

  @Test func anAPIErrorEndsTheSequenceWithThatError() async throws {
    // The quota covers one request; the second gets the API's throttle_violation body.
    let harness = try DataManagerHarness(fixture: StackExchangeFixture(quotaMax: 1))

    let outcome = await completing {
      await collect(harness.dataManager.pages(tenPerPage, maxPages: 3))
    }

    #expect(outcome?.numbers == [1])
    #expect(outcome?.pages.first?.page.quotaRemaining == 0)
    let apiError = (outcome?.error as? NetworkingError)?.stackExchangeAPIError
    #expect(apiError?.errorName == "throttle_violation")
    #expect(apiError?.errorID == 502)
    #expect(outcome?.endsWithNil == true)
    #expect(harness.questionRequests == 2)
  }

  @Test func anInvalidQueryEndsTheSequenceWithoutARequest() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture())
    let query = QuestionsQuery(site: "stackoverflow", pageSize: 500)

    let outcome = await completing { await collect(harness.dataManager.pages(query, maxPages: 3)) }

    #expect(outcome?.error as? QueryError == .pageSizeOutOfRange(500))
    #expect(outcome?.endsWithNil == true)
    #expect(harness.questionRequests == 0)
  }

  @Test func twoConsumersOfOneQueryShareOneRequestPerPage() async throws {
    let fixture = StackExchangeFixture()
    let releases = PageReleases(pages: 3)
    let harness = try DataManagerHarness { request in
      releases.waitForRelease(of: Int(request.query["page"] ?? "") ?? 0)
      return fixture.respond(to: request)
    }
    let events = harness.manager.makeEvents()

    let consumers = (0..<2).map { _ in
      Task { await collect(harness.dataManager.pages(tenPerPage, maxPages: 5)) }
    }
    var linedUp: [Bool] = []
    for page in 1...3 {
      // Page `page` is held at the server until both consumers have asked for it.
      linedUp.append(await registrations(2, on: events))
      releases.release(page)
    }
    var outcomes: [PagesOutcome?] = []
    for consumer in consumers {
      outcomes.append(await completing { await consumer.value })
    }

    #expect(linedUp == [true, true, true])
    #expect(outcomes.map { $0?.numbers } == [[1, 2, 3], [1, 2, 3]])
    #expect(
      outcomes.map { $0?.pages.map(\.page.quotaRemaining) } == [[299, 298, 297], [299, 298, 297]])
    #expect(harness.questionRequests == 3)
  }
}

/// Holds the server's response to each page until the test releases it (bounded).
private final class PageReleases: Sendable {
  private let gates: [Gate]

  init(pages: Int) {
    gates = (0..<pages).map { _ in Gate() }
  }

  /// Blocks the calling connection thread until page `number` is released.
  func waitForRelease(of number: Int) {
    guard gates.indices.contains(number - 1) else { return }
    _ = gates[number - 1].block()
  }

  /// Lets the responses to page `number` go.
  func release(_ number: Int) {
    gates[number - 1].open()
  }
}
