import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// `perform` on foreign operations left untouched (shape 1, `BlockOperation`s).
@Suite struct PerformForeignTests {
  @Test func awaitsABlockOperationUntilItHasRun() async {
    let manager = OperationQueueManager()
    let ran = Locked(0)
    let operation = BlockOperation { ran.withLock { $0 += 1 } }
    let task = Task { try await manager.perform(operation) }
    _ = await value(of: task)
    #expect(ran.withLock { $0 } == 1)
    #expect(operation.isFinished)
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  @Test func returnsTheOutcomeOfAResultProducingOperation() async {
    let manager = OperationQueueManager()
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "stackoverflow", service: service)
    let task = Task { try await manager.perform(fetch) }
    #expect(await service.firstRequest.wait())
    service.answer(.success(["First", "Second"]))
    #expect(await value(of: task) == ["First", "Second"])
  }

  @Test func deliversTheLegacyFailure() async {
    struct Offline: Error {}
    let manager = OperationQueueManager()
    let service = ManualQuestionService()
    let task = Task {
      try await manager.perform(FetchTitlesOperation(site: "stackoverflow", service: service))
    }
    #expect(await service.firstRequest.wait())
    service.answer(.failure(Offline()))
    #expect(await error(of: task) is Offline)
  }

  @Test func anOperationFinishedBeforeTheCallResolvesAtOnceWithoutRunningAgain() async {
    let manager = OperationQueueManager()
    let runs = Locked(0)
    let operation = BlockOperation { runs.withLock { $0 += 1 } }
    operation.start()
    let task = Task { try await manager.perform(operation) }
    _ = await value(of: task)
    #expect(runs.withLock { $0 } == 1)
    #expect(manager.isIdle)
  }

  @Test func aCancelledOperationFinishedBeforeTheCallThrowsCancellation() async {
    let manager = OperationQueueManager()
    let fetch = FetchTitlesOperation(site: "s", service: ManualQuestionService())
    fetch.cancel()  // The legacy `cancel()` finishes it at once.
    let task = Task { try await manager.perform(fetch) }
    #expect(await error(of: task) is CancellationError)
  }

  @Test func anOutcomeOfNilIsATypedError() async {
    /// A foreign operation that finishes without storing a result.
    final class Forgetful: ResultOperation<Int>, ResultProducingOperation, @unchecked Sendable {
      var outcome: Result<Int, any Error>? { result }
      override func main() { finish() }
    }
    let manager = OperationQueueManager()
    let task = Task { try await manager.perform(Forgetful()) }
    let thrown = await error(of: task)
    #expect(thrown as? ForeignOperationError == .noOutcome(operationName: "Forgetful"))
  }

  @Test func keepsAnExistingCompletionBlockAndOneSetLater() async {
    let manager = OperationQueueManager(maxConcurrentOperationCount: 1)
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "s", service: service)
    let early = Gate()
    let late = Gate()
    fetch.completionBlock = { early.open() }
    let task = Task { try await manager.perform(fetch) }
    #expect(await service.firstRequest.wait())
    // The legacy code replaces its completion block while the operation runs.
    fetch.completionBlock = { late.open() }
    service.answer(.success(["t"]))
    #expect(await value(of: task) == ["t"])
    #expect(await late.wait())
    #expect(!early.isOpen)

    let second = FetchTitlesOperation(site: "s", service: service)
    second.completionBlock = { early.open() }
    let secondTask = Task { try await manager.perform(second) }
    #expect(await eventually(within: .seconds(30)) { service.requestCount == 2 })
    service.answer(.success(["u"]))
    #expect(await value(of: secondTask) == ["u"])
    #expect(await early.wait())
  }

  @Test func aCallerDeadlineLeavesAndCancelsWorkNobodyElseWants() async {
    let manager = OperationQueueManager()
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "s", service: service)
    let task = Task { try await manager.perform(fetch, timeout: .milliseconds(50)) }
    let thrown = await error(of: task)
    #expect((thrown as? OperationTimeoutError)?.scope == .caller)
    #expect(await eventually(within: .seconds(30)) { fetch.isCancelled && fetch.isFinished })
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }
}
