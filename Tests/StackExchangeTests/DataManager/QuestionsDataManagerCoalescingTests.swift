import AsyncBridge
import FixtureServer
import Foundation
import OperationCore
import TestSupport
import Testing

@testable import StackExchange

@Suite struct QuestionsDataManagerCoalescingTests {
  @Test(arguments: [2, 10])
  func identicalConcurrentCallsFromBothAPIsShareOneRequest(callers: Int) async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture())
    let events = harness.manager.makeEvents()
    // Suspended, the queue holds the first request back until every caller has lined up.
    harness.manager.isSuspended = true

    let tasks = (0..<callers).map { index in
      Task {
        index.isMultiple(of: 2)
          ? await asyncResult(harness.dataManager, stackOverflow)
          : await handlerResult(harness.dataManager, stackOverflow)
      }
    }
    let linedUp = await registrations(callers, on: events)
    harness.manager.isSuspended = false
    var pages: [QuestionsPage] = []
    for task in tasks {
      if let page = success(of: await task.value) { pages.append(page) }
    }

    #expect(linedUp)
    #expect(harness.questionRequests == 1)
    #expect(pages.count == callers)
    #expect(Set(pages.map(\.quotaRemaining)) == [299])
  }

  /// Data managers on one queue manager share a request only when they would have sent it
  /// alike: the same session, decoder and request timeout. Keyed by the URL alone, a call would
  /// join another data manager's request and get that one's time limit.
  @Test func dataManagersShareARequestOnlyWithTheSameSettings() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture())
    let first = harness.dataManager
    func dataManager(decoder: JSONDecoder, timeout: Duration) -> QuestionsDataManager {
      QuestionsDataManager(
        manager: harness.manager, baseURL: harness.server.baseURL, session: testSession,
        decoder: decoder, requestTimeout: timeout)
    }
    let alike = dataManager(decoder: first.decoder, timeout: .seconds(60))
    let shorterLimit = dataManager(decoder: first.decoder, timeout: .seconds(30))
    let otherDecoder = dataManager(decoder: JSONDecoder(), timeout: .seconds(60))
    let events = harness.manager.makeEvents()
    harness.manager.isSuspended = true

    let tasks = [first, alike, shorterLimit, otherDecoder].map { dataManager in
      Task { await asyncResult(dataManager, stackOverflow) }
    }
    let linedUp = await registrations(tasks.count, on: events)
    harness.manager.isSuspended = false

    #expect(linedUp)
    for task in tasks { #expect(success(of: await task.value)?.items.count == 5) }
    #expect(harness.questionRequests == 3)
  }

  @Test func differentQueriesDoNotShareARequest() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture())
    let events = harness.manager.makeEvents()
    harness.manager.isSuspended = true

    let first = Task { await asyncResult(harness.dataManager, stackOverflow) }
    let second = Task {
      await handlerResult(harness.dataManager, QuestionsQuery(site: "stackoverflow", pageSize: 6))
    }
    let linedUp = await registrations(2, on: events)
    harness.manager.isSuspended = false

    #expect(linedUp)
    #expect(success(of: await first.value)?.items.count == 5)
    #expect(success(of: await second.value)?.items.count == 6)
    #expect(harness.questionRequests == 2)
  }
}
