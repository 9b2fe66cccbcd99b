import Dispatch
import FixtureServer
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

@testable import StackExchange

@Suite struct QuestionsDataManagerFetchTests {
  @Test func asyncCallFetchesAndDecodesAPageOverHTTP() async throws {
    let targets = Locked<[String]>([])
    let fixture = StackExchangeFixture()
    let harness = try DataManagerHarness { request in
      targets.withLock { $0.append(request.target) }
      return fixture.respond(to: request)
    }

    let page = try #require(success(of: await asyncResult(harness.dataManager, stackOverflow)))

    #expect(targets.withLock { $0 } == ["/questions?site=stackoverflow&pagesize=5"])
    #expect(page.items.count == 5)
    #expect(page.hasMore)
    #expect(page.quotaMax == 300)
    #expect(page.quotaRemaining == 299)
    #expect(page.backoff == nil)
    let first = try #require(page.items.first)
    #expect(first.questionID == 79_834_101)
    #expect(
      first.displayTitle
        == "Why does my OperationQueue never finish when I override \"isFinished\"?")
  }

  @Test func completionHandlerReceivesThePageOnItsCallbackQueue() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture())
    let key = DispatchSpecificKey<String>()
    let queue = DispatchQueue(label: "QuestionsDataManagerFetchTests.callback")
    queue.setSpecific(key: key, value: "callback")

    let delivery = await completing {
      await withCheckedContinuation { continuation in
        harness.dataManager.fetchQuestions(stackOverflow, callbackQueue: .dispatch(queue)) {
          continuation.resume(returning: ($0, DispatchQueue.getSpecific(key: key)))
        }
      }
    }

    let (result, queueName) = try #require(delivery)
    #expect(queueName == "callback")
    #expect(success(of: result)?.items.count == 5)
  }

  @Test func sequentialIdenticalCallsEachSendARequest() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture())

    _ = success(of: await asyncResult(harness.dataManager, stackOverflow))
    _ = success(of: await handlerResult(harness.dataManager, stackOverflow))

    #expect(harness.questionRequests == 2)
  }

  @Test func baseURLPathIsKeptInFrontOfQuestions() async throws {
    let paths = Locked<[String]>([])
    let fixture = StackExchangeFixture()
    let server = try FixtureHTTPServer { request in
      paths.withLock { $0.append(request.path) }
      return fixture.respond(to: request)
    }
    let dataManager = QuestionsDataManager(
      manager: OperationQueueManager(), baseURL: server.url("/2.3"), session: testSession)

    _ = success(of: await asyncResult(dataManager, stackOverflow))

    #expect(paths.withLock { $0 } == ["/2.3/questions"])
  }
}
