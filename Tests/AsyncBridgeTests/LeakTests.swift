import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Nothing in the bridge keeps operations, managers or async operations alive once they are
/// done, whether they finished or were cancelled.
@Suite struct LeakTests {
  /// Weak references to what a scenario created; every strong reference is gone once the
  /// scenario function returns.
  private struct Survivors {
    let operation: WeakReference<Operation>
    let manager: WeakReference<OperationQueueManager>

    init(_ operation: Operation, _ manager: OperationQueueManager) {
      self.operation = WeakReference(operation)
      self.manager = WeakReference(manager)
    }

    func expectReleased(sourceLocation: SourceLocation = #_sourceLocation) async {
      #expect(await eventually { operation.isFreed }, sourceLocation: sourceLocation)
      #expect(await eventually { manager.isFreed }, sourceLocation: sourceLocation)
    }
  }

  @Test func operationAndManagerAreFreedAfterCompletion() async throws {
    await Self.completed().expectReleased()
  }

  @Test func operationAndManagerAreFreedAfterCancellationWhileExecuting() async throws {
    await Self.cancelledWhileExecuting().expectReleased()
  }

  @Test func operationAndManagerAreFreedAfterCancellationWhilePending() async throws {
    await Self.cancelledWhilePending().expectReleased()
  }

  @Test func asyncOperationIsFreedAfterCompletion() async throws {
    await Self.asyncCompleted().expectReleased()
  }

  @Test func asyncOperationIsFreedAfterCancellationWhileRunning() async throws {
    await Self.asyncCancelledWhileRunning().expectReleased()
  }

  @Test func asyncOperationIsFreedAfterCancellationBeforeStarting() async throws {
    await Self.asyncCancelledBeforeStarting().expectReleased()
  }

  @Test func runClosureCapturesAreFreed() async throws {
    let (payload, manager) = await Self.runWithPayload()
    #expect(await eventually { payload.isFreed })
    #expect(await eventually { manager.isFreed })
  }

  /// A call that joins work in flight never runs its closure, and lets it go before it waits:
  /// what the closure captured is not held until the shared run ends.
  @Test func aCallThatJoinsFreesItsClosureBeforeItWaits() async throws {
    let manager = OperationQueueManager(name: "leak.joinerClosure")
    manager.isSuspended = true
    let log = EventLog(manager)
    let first = Task { try await manager.run(key: 1) { () async throws -> Int in 1 } }
    #expect(await log.wait { $0.kind == .enqueued })
    let payload = Locked<WeakReference<Payload>?>(nil)
    // The closure is a temporary of the call: nothing but the call holds it.
    let joiner = Task { try await manager.run(key: 1, Self.body(recordingPayloadIn: payload)) }
    #expect(await log.wait { $0.kind == .joined })
    #expect(await eventually { payload.withLock { $0?.isFreed } == true })
    manager.isSuspended = false
    await expectValue(1, from: first)
    await expectValue(1, from: joiner)
  }

  // MARK: Scenarios

  private static func completed() async -> Survivors {
    let manager = OperationQueueManager(name: "leak.completion")
    let operation = ManualOperation(key: 1)
    let task = Task { try await manager.perform(operation) }
    #expect(await operation.started.wait())
    operation.release(1)
    await expectValue(1, from: task)
    #expect(await becomesIdle(manager))
    #expect(manager.outstandingOperationCount == 0)
    return Survivors(operation, manager)
  }

  private static func cancelledWhileExecuting() async -> Survivors {
    let manager = OperationQueueManager(name: "leak.cancelExecuting")
    let operation = ManualOperation(key: 1)
    let task = Task { try await manager.perform(operation) }
    #expect(await operation.started.wait())
    task.cancel()
    await expectCancellation(of: task)
    #expect(await becomesIdle(manager))
    return Survivors(operation, manager)
  }

  private static func cancelledWhilePending() async -> Survivors {
    let manager = OperationQueueManager(name: "leak.cancelPending")
    manager.isSuspended = true
    let operation = ManualOperation(key: 1)
    let task = await taskPerformingEnqueued(operation, on: manager)
    task.cancel()
    await expectCancellation(of: task)
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
    return Survivors(operation, manager)
  }

  private static func asyncCompleted() async -> Survivors {
    let manager = OperationQueueManager(name: "leak.asyncCompletion")
    let operation = AsyncOperation(coalescingKey: 1) { () async throws -> Int in 5 }
    let task = Task { try await manager.perform(operation) }
    await expectValue(5, from: task)
    #expect(await becomesIdle(manager))
    return Survivors(operation, manager)
  }

  private static func asyncCancelledWhileRunning() async -> Survivors {
    let manager = OperationQueueManager(name: "leak.asyncCancel")
    let started = Gate()
    let operation = AsyncOperation { () async throws -> Int in
      started.open()
      try await Task.sleep(for: .seconds(5))
      return 1
    }
    let task = Task { try await manager.perform(operation) }
    #expect(await started.wait())
    task.cancel()
    await expectCancellation(of: task)
    #expect(await becomesIdle(manager))
    return Survivors(operation, manager)
  }

  private static func asyncCancelledBeforeStarting() async -> Survivors {
    let manager = OperationQueueManager(name: "leak.asyncCancelPending")
    manager.isSuspended = true
    let operation = AsyncOperation(coalescingKey: 1) { () async throws -> Int in 1 }
    let task = await taskPerformingEnqueued(operation, on: manager)
    manager.cancelAllOperations()
    await expectCancellation(of: task)
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
    return Survivors(operation, manager)
  }

  private final class Payload: Sendable {}

  /// A closure that returns 2 and holds a new payload, whose weak reference goes to `slot`.
  private static func body(
    recordingPayloadIn slot: Locked<WeakReference<Payload>?>
  ) -> @Sendable () async throws -> Int {
    let payload = Payload()
    slot.withLock { $0 = WeakReference(payload) }
    return { withExtendedLifetime(payload) { 2 } }
  }

  private static func runWithPayload() async -> (
    WeakReference<Payload>, WeakReference<OperationQueueManager>
  ) {
    let manager = OperationQueueManager(name: "leak.run")
    let payload = Payload()
    let task = Task {
      try await manager.run(key: 1) { () async throws -> Int in
        withExtendedLifetime(payload) { 1 }
      }
    }
    await expectValue(1, from: task)
    #expect(await becomesIdle(manager))
    return (WeakReference(payload), WeakReference(manager))
  }
}
