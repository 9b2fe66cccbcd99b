import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// `waitUntilFinished`: awaiting operations that someone else enqueued, on any queue.
@Suite struct WaitUntilFinishedForeignTests {
  @Test func awaitsAnOperationTheLegacySingletonEnqueued() async {
    let manager = OperationQueueManager()
    let work = BlockingWork()
    let avatars = LegacyAvatarManager { id in
      work.run()
      return Data(id.utf8)
    }
    let threads = avatars.queue.runsBlockingWork(label: "wait.avatars")
    let operation = avatars.loadAvatar(id: "7") { _ in }
    let task = Task { try await manager.waitUntilFinished(operation) }
    #expect(await work.started.wait())
    work.release()
    _ = await value(of: task)
    #expect(avatars.avatar(for: "7") == Data("7".utf8))
    #expect(manager.isIdle)
    withExtendedLifetime(threads) {}
  }

  @Test func readsTheOutcomeOfAnOperationOnAnotherQueue() async {
    let manager = OperationQueueManager()
    let queue = OperationQueue()
    let store = FixedQuestionStore(questions: [3: QuestionRecord(id: 3, title: "Three")])
    let load = LoadQuestionOperation(id: 3, store: store)
    queue.isSuspended = true
    queue.addOperation(load)
    let task = Task { try await manager.waitUntilFinished(load) }
    queue.isSuspended = false
    #expect(await value(of: task) == QuestionRecord(id: 3, title: "Three"))
  }

  @Test func theWaiterLeavingNeverCancelsTheOperation() async {
    let manager = OperationQueueManager()
    let (fetch, service) = await fetchRunningElsewhere()
    let leaving = Task { try await manager.waitUntilFinished(fetch, timeout: .seconds(30)) }
    let staying = Task { try await manager.waitUntilFinished(fetch) }
    leaving.cancel()
    #expect(await error(of: leaving) is CancellationError)
    let timingOut = Task { try await manager.waitUntilFinished(fetch, timeout: .milliseconds(20)) }
    #expect(await error(of: timingOut) is OperationTimeoutError)
    #expect(!fetch.isCancelled)
    service.answer(.success(["waited for"]))
    #expect(await value(of: staying) == ["waited for"])
  }

  @Test func aFinishedOperationResolvesAtOnce() async {
    let manager = OperationQueueManager()
    let load = LoadQuestionOperation(id: 9, store: FixedQuestionStore(questions: [:]))
    load.start()
    let task = Task { try await manager.waitUntilFinished(load) }
    #expect(await error(of: task) as? LegacyAPIError == .notFound)
  }

  @Test func anOperationCancelledByItsOwnerEndsTheWaitWithCancellation() async {
    let manager = OperationQueueManager()
    let (fetch, _) = await fetchRunningElsewhere()
    let task = Task { try await manager.waitUntilFinished(fetch) }
    // Not while it is pending: that would hang the owner's corelibs queue, whoever waits.
    fetch.cancel()
    #expect(await error(of: task) is CancellationError)
  }

  /// A legacy fetch that other code added to its own queue, once it has started.
  private func fetchRunningElsewhere() async -> (FetchTitlesOperation, ManualQuestionService) {
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "s", service: service)
    OperationQueue().addOperation(fetch)
    #expect(await service.firstRequest.wait())
    return (fetch, service)
  }
}
