import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// Queue-wide cancellation, cancelling an operation directly, and priorities.
@Suite struct QueueControlTests {
  @Test func cancelAllOperationsCancelsEveryAwaitingTask() async throws {
    let manager = OperationQueueManager(name: "control.cancelAll", maxConcurrentOperationCount: 1)
    let log = EventLog(manager)
    let executing = ManualOperation(key: 1)
    let pending = ManualOperation(key: 2)
    let other = ManualOperation(key: 3)
    var tasks = [Task { try await manager.perform(executing) }]
    #expect(await executing.started.wait())
    tasks.append(Task { try await manager.perform(pending) })
    // Tasks start in no set order: enqueue `pending` before anything can join its key.
    #expect(await log.wait(for: .enqueued, of: pending))
    tasks.append(Task { try await manager.perform(other) })
    tasks.append(Task { try await manager.perform(ManualOperation(key: 2)) })
    #expect(await log.wait(for: .enqueued, of: other))
    #expect(await log.wait(for: .joined, of: pending))

    manager.cancelAllOperations()
    for task in tasks { await expectCancellation(of: task, within: .seconds(30)) }
    #expect(executing.isCancelled && pending.isCancelled && other.isCancelled)
    #expect(executing.cancelHookCalls.value == 1)
    #expect(await becomesIdle(manager))
    #expect(pending.mainCalls.value == 0)
    #expect(other.mainCalls.value == 0)
  }

  @Test func cancellingTheOperationCancelsEveryAwaiter() async throws {
    let manager = OperationQueueManager(name: "control.opCancel")
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    var tasks = [Task { try await manager.perform(operation) }]
    #expect(await log.wait(for: .enqueued, of: operation))
    tasks.append(Task { try await manager.perform(ManualOperation(key: 1)) })
    tasks.append(Task { try await manager.perform(ManualOperation(key: 1)) })
    #expect(await log.wait(for: .joined, of: operation, count: 2))
    let valueWaiter = Task { try await operation.value() }
    #expect(await operation.started.wait())

    operation.cancel()
    for task in tasks { await expectCancellation(of: task, within: .seconds(30)) }
    await expectCancellation(of: valueWaiter, within: .seconds(30))
    #expect(operation.cancelHookCalls.value == 1)
    #expect(await becomesIdle(manager))
  }

  @Test func joiningFromAHigherPriorityTaskEscalatesTheOperation() async throws {
    let manager = OperationQueueManager(name: "control.priority")
    manager.isSuspended = true
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let low = Task(priority: .low) { try await manager.perform(operation) }
    #expect(await log.wait(for: .enqueued, of: operation))
    #expect(operation.queuePriority == .low)

    let high = Task(priority: .high) { try await manager.perform(ManualOperation(key: 1)) }
    #expect(await log.wait(for: .joined, of: operation))
    #expect(operation.queuePriority == .high)

    // A lower-priority joiner never lowers it.
    let background = Task(priority: .background) {
      try await manager.perform(ManualOperation(key: 1))
    }
    #expect(await log.wait(for: .joined, of: operation, count: 2))
    #expect(operation.queuePriority == .high)

    manager.isSuspended = false
    #expect(await operation.started.wait())
    operation.release(1)
    for task in [low, high, background] { await expectValue(1, from: task) }
  }

  @Test func explicitPriorityOverridesTheTaskPriority() async throws {
    let manager = OperationQueueManager(name: "control.explicitPriority")
    manager.isSuspended = true
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let first = Task(priority: .high) { try await manager.perform(operation, priority: .veryLow) }
    #expect(await log.wait(for: .enqueued, of: operation))
    #expect(operation.queuePriority == .veryLow)
    let second = Task(priority: .low) {
      try await manager.perform(ManualOperation(key: 1), priority: .veryHigh)
    }
    #expect(await log.wait(for: .joined, of: operation))
    #expect(operation.queuePriority == .veryHigh)
    manager.cancelAllOperations()
    await expectCancellation(of: first)
    await expectCancellation(of: second)
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
  }

  @Test func escalatedOperationRunsBeforeEarlierNormalOnes() async throws {
    let manager = OperationQueueManager(name: "control.order", maxConcurrentOperationCount: 1)
    manager.isSuspended = true
    let log = EventLog(manager)
    let normal = ManualOperation(key: 1)
    let escalated = ManualOperation(key: 2)
    let normalTask = Task(priority: .medium) { try await manager.perform(normal) }
    #expect(await log.wait(for: .enqueued, of: normal))
    let lowTask = Task(priority: .low) { try await manager.perform(escalated) }
    #expect(await log.wait(for: .enqueued, of: escalated))
    let highTask = Task(priority: .high) { try await manager.perform(ManualOperation(key: 2)) }
    #expect(await log.wait(for: .joined, of: escalated))

    manager.isSuspended = false
    #expect(await escalated.started.wait())
    #expect(normal.mainCalls.value == 0)
    escalated.release(2)
    #expect(await normal.started.wait())
    normal.release(1)
    await expectValue(1, from: normalTask)
    await expectValue(2, from: lowTask)
    await expectValue(2, from: highTask)
  }
}
