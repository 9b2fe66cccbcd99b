import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// Nothing the bridge adds (adapter, finish signal, waiters) outlives the wait.
@Suite struct FreeingForeignTests {
  @Test func aPerformedOperationIsFreedAfterItFinished() async {
    let manager = OperationQueueManager()
    let service = ManualQuestionService()
    var fetch: FetchTitlesOperation? = FetchTitlesOperation(site: "s", service: service)
    let released = WeakReference(fetch!)
    let task = Task { [fetch] in try await manager.perform(fetch!, coalescingKey: "s") }
    fetch = nil
    #expect(await service.firstRequest.wait())
    service.answer(.success([]))
    _ = await value(of: task)
    #expect(await becomesIdle(manager, within: .seconds(30)))
    #expect(await eventually(within: .seconds(30)) { released.isFreed })
  }

  @Test func aCancelledPendingOperationIsFreed() async {
    let manager = OperationQueueManager()
    manager.isSuspended = true
    var load: LoadQuestionOperation? = LoadQuestionOperation(
      id: 1, store: FixedQuestionStore(questions: [:]))
    let released = WeakReference(load!)
    let task = Task { [load] in try await manager.perform(load!) }
    load = nil
    #expect(await eventually(within: .seconds(30)) { manager.outstandingOperationCount == 1 })
    task.cancel()
    #expect(await error(of: task) is CancellationError)
    manager.isSuspended = false
    #expect(await becomesIdle(manager, within: .seconds(30)))
    // The careful legacy `cancel()` leaves it pending: the adapter starts it, cancelled, so
    // that it finishes as its queue would have made it, and nothing keeps it afterwards.
    #expect(await eventually(within: .seconds(30)) { released.isFreed })
  }

  @Test func anOperationWaitedForElsewhereIsFreedWhenItsOwnerIsDone() async {
    let manager = OperationQueueManager()
    let queue = OperationQueue()
    let service = ManualQuestionService()
    var fetch: FetchTitlesOperation? = FetchTitlesOperation(site: "s", service: service)
    let released = WeakReference(fetch!)
    queue.addOperation(fetch!)
    let leaving = Task { [fetch] in try await manager.waitUntilFinished(fetch!) }
    fetch = nil
    #expect(await service.firstRequest.wait())
    leaving.cancel()
    #expect(await error(of: leaving) is CancellationError)
    service.answer(.success([]))
    #expect(await eventually(within: .seconds(30)) { released.isFreed })
  }
}
