import AsyncBridge
import FixtureServer
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

@testable import StackExchange

@Suite struct QuestionsDataManagerBackoffTests {
  @Test func laterCallsDuringABackoffFailFastWithoutARequest() async throws {
    let clock = TestClock()
    let harness = try DataManagerHarness(fixture: StackExchangeFixture(backoff: 30), clock: clock)

    let first = success(of: await asyncResult(harness.dataManager, stackOverflow))
    await clock.advance(by: .seconds(10))
    let asyncError = failure(of: await asyncResult(harness.dataManager, stackOverflow))
    let handlerError = failure(
      of: await handlerResult(harness.dataManager, QuestionsQuery(site: "StackOverflow")))

    #expect(first?.backoff == 30)
    let expected = BackoffError(site: "stackoverflow", retryAfter: .seconds(20))
    #expect(asyncError as? BackoffError == expected)
    #expect(
      handlerError as? BackoffError == BackoffError(site: "StackOverflow", retryAfter: .seconds(20))
    )
    #expect(harness.questionRequests == 1)
  }

  @Test func backoffAppliesToItsSiteOnly() async throws {
    let fixture = StackExchangeFixture(backoff: 30)
    let harness = try DataManagerHarness(fixture: fixture)

    _ = success(of: await handlerResult(harness.dataManager, stackOverflow))
    fixture.backoff = nil
    let otherSite = success(
      of: await asyncResult(harness.dataManager, QuestionsQuery(site: "superuser")))

    #expect(otherSite?.items.isEmpty == false)
    #expect(harness.questionRequests == 2)
  }

  @Test func callsGoThroughAgainOnceTheBackoffHasExpired() async throws {
    let clock = TestClock()
    let fixture = StackExchangeFixture(backoff: 2)
    let harness = try DataManagerHarness(fixture: fixture, clock: clock)

    _ = success(of: await asyncResult(harness.dataManager, stackOverflow))
    fixture.backoff = nil
    await clock.advance(by: .milliseconds(1_999))
    let tooEarly = failure(of: await asyncResult(harness.dataManager, stackOverflow))
    await clock.advance(by: .milliseconds(1))
    let onTime = success(of: await asyncResult(harness.dataManager, stackOverflow))

    #expect(
      tooEarly as? BackoffError == BackoffError(site: "stackoverflow", retryAfter: .milliseconds(1))
    )
    #expect(onTime?.backoff == nil)
    #expect(harness.questionRequests == 2)
  }

  @Test func callersSharingTheRequestThatCarriedTheBackoffAllGetThePage() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture(backoff: 30))
    let events = harness.manager.makeEvents()
    harness.manager.isSuspended = true

    let first = Task { await asyncResult(harness.dataManager, stackOverflow) }
    let second = Task { await handlerResult(harness.dataManager, stackOverflow) }
    let linedUp = await registrations(2, on: events)
    harness.manager.isSuspended = false

    #expect(linedUp)
    #expect(success(of: await first.value)?.backoff == 30)
    #expect(success(of: await second.value)?.backoff == 30)
    #expect(failure(of: await asyncResult(harness.dataManager, stackOverflow)) is BackoffError)
    #expect(harness.questionRequests == 1)
  }
}
