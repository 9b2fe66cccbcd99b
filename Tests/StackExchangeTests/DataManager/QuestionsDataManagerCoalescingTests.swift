import AsyncBridge
import FixtureServer
import OperationCore
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
      if let page = page(of: await task.value) { pages.append(page) }
    }

    #expect(linedUp)
    #expect(harness.questionRequests == 1)
    #expect(pages.count == callers)
    #expect(Set(pages.map(\.quotaRemaining)) == [299])
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
    #expect(page(of: await first.value)?.items.count == 5)
    #expect(page(of: await second.value)?.items.count == 6)
    #expect(harness.questionRequests == 2)
  }
}
