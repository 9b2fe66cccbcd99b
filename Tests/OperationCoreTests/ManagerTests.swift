import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

@Suite struct ManagerTests {
  @Test func managerWrapsAnInjectedQueueAndForwardsQueueControl() async throws {
    let queue = OperationQueue()
    let manager = OperationQueueManager(queue: queue)
    #expect(manager.queue === queue)

    manager.maxConcurrentOperationCount = 3
    #expect(queue.maxConcurrentOperationCount == 3)
    manager.qualityOfService = .utility
    #expect(queue.qualityOfService == .utility)
    manager.isSuspended = true
    #expect(queue.isSuspended)

    let operation = ManualOperation(ending: .returning(1))
    manager.enqueue(operation)
    #expect(operation.mainCallCount == 0)
    manager.isSuspended = false
    #expect(!queue.isSuspended)
    #expect(await becomesIdle(manager))
    #expect(operation.mainCallCount == 1)
  }

  @Test func convenienceInitialiserConfiguresItsQueue() {
    let manager = OperationQueueManager(
      name: "manager.convenience", maxConcurrentOperationCount: 2, qualityOfService: .background)
    #expect(manager.queue.name == "manager.convenience")
    #expect(manager.maxConcurrentOperationCount == 2)
    #expect(manager.qualityOfService == .background)
    #expect(!manager.isSuspended)
    #expect(manager.isIdle)
  }

  /// swift-corelibs-foundation traps on a negative width other than the default's -1: the
  /// manager reads one as the default, through its initialiser and its setter.
  @Test func aNegativeWidthIsReadAsTheDefault() async throws {
    let manager = OperationQueueManager(name: "negative-width", maxConcurrentOperationCount: -5)
    #expect(
      manager.maxConcurrentOperationCount == OperationQueue.defaultMaxConcurrentOperationCount)
    manager.maxConcurrentOperationCount = 2
    manager.maxConcurrentOperationCount = -7
    #expect(
      manager.maxConcurrentOperationCount == OperationQueue.defaultMaxConcurrentOperationCount)

    let operation = ManualOperation(ending: .returning(1))
    manager.enqueue(operation)
    #expect(await becomesIdle(manager))
    #expect(operation.mainCallCount == 1)
  }

  @Test func twoManagersNeverJoinEachOthersWork() async throws {
    let first = OperationQueueManager(name: "manager.first")
    let second = OperationQueueManager(name: "manager.second")
    first.isSuspended = true
    second.isSuspended = true
    let a = ManualOperation(key: 1, ending: .returning(1))
    let b = ManualOperation(key: 1, ending: .returning(2))
    #expect(first.enqueue(a) === a)
    #expect(second.enqueue(b) === b)
    #expect(first.inFlightOperation(for: a.coalescingKey!) === a)
    #expect(second.inFlightOperation(for: b.coalescingKey!) === b)

    // Suspending or cancelling one manager's queue leaves the other alone.
    first.cancelAllOperations()
    #expect(!b.isCancelled)
    second.isSuspended = false
    #expect(await becomesIdle(second))
    #expect(try b.result?.get() == 2)
    #expect(!a.isFinished)
    first.isSuspended = false
    #expect(await becomesIdle(first))
    #expect(a.mainCallCount == 0)
  }

  @Test func enqueueingInASecondManagerWaitsInsteadOfTrapping() async throws {
    let first = OperationQueueManager(name: "manager.owner")
    let second = OperationQueueManager(name: "manager.other")
    let operation = ManualOperation()
    let results = ResultRecorder()
    first.enqueue(operation)
    #expect(second.enqueue(operation) { results.record($0) } === operation)
    #expect(second.isIdle)
    #expect(await operation.started.wait())
    operation.release(4)
    #expect(results.values.compactMap(\.value) == [4])
    #expect(operation.mainCallCount == 1)
  }

  @Test func stallThresholdOnSlowWorkDoesNotDisturbIt() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "manager.stall", clock: clock)
    manager.stallThreshold = .milliseconds(10)
    #expect(manager.stallThreshold == .milliseconds(10))
    let results = ResultRecorder()
    let slow = ManualOperation()
    let fast = ManualOperation(ending: .returning(2))
    manager.enqueue(slow) { results.record($0) }
    manager.enqueue(fast) { results.record($0) }
    #expect(await slow.started.wait())
    try await clock.waitUntilTimers(1)  // the slow one's stall check, armed before it started
    await clock.advance(by: .milliseconds(50))  // past the threshold: the stall check runs

    #expect(slow.isExecuting)
    #expect(!slow.isCancelled)
    slow.release(1)
    #expect(await becomesIdle(manager))
    #expect(Set(results.values.compactMap(\.value)) == [1, 2])
    manager.stallThreshold = nil
    #expect(manager.stallThreshold == nil)
  }

  @Test func managerIsFreedAfterItsWork() async throws {
    let reference = try await { () async throws -> WeakReference<OperationQueueManager> in
      let manager = OperationQueueManager(name: "manager.released")
      manager.stallThreshold = .milliseconds(1)
      let results = ResultRecorder()
      for index in 0..<10 {
        manager.enqueue(ManualOperation(key: index % 3, ending: .returning(index))) {
          results.record($0)
        }
      }
      let cancelled = ManualOperation()
      manager.enqueue(cancelled) { results.record($0) }
      cancelled.cancel()
      #expect(await results.wait(forCount: 11))
      #expect(await becomesIdle(manager))
      return WeakReference(manager)
    }()
    #expect(await eventually { reference.isFreed })
  }

  @Test func operationIsFreedAfterCompletionEvenIfItsHandlerCapturesIt() async throws {
    let manager = OperationQueueManager(name: "manager.operationReleased")
    let reference = try await { () async throws -> WeakReference<ManualOperation> in
      let operation = ManualOperation(key: 1)
      let results = ResultRecorder()
      manager.enqueue(operation) { result in
        // A handler that keeps its operation alive until it runs: no cycle may outlive that.
        results.record(result.map { $0 + operation.mainCallCount })
      }
      operation.addCompletion { _ in _ = operation.isFinished }
      #expect(await operation.started.wait())
      operation.release(1)
      #expect(await results.wait(forCount: 1))
      #expect(results.values.first?.value == 2)
      return WeakReference(operation)
    }()
    #expect(await becomesIdle(manager))
    #expect(await eventually { reference.isFreed })
  }

  @Test func cancelledPendingOperationIsFreedAfterTheQueueDrains() async throws {
    let manager = OperationQueueManager(name: "manager.cancelledReleased")
    manager.isSuspended = true
    let reference = { () -> WeakReference<ManualOperation> in
      let operation = ManualOperation(key: 1, ending: .returning(1))
      manager.enqueue(operation) { _ in _ = operation.isCancelled }
      operation.cancel()
      return WeakReference(operation)
    }()
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
    #expect(await eventually { reference.isFreed })
  }
}
