import AsyncBridge
import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// The priority of shared work follows the callers still waiting for it, both ways: up when a
/// caller asking for more joins or a waiting task is escalated, down when the most urgent
/// caller leaves. Each test checks the order in which a real width-1 queue starts the work.
@Suite struct LivePriorityTests {
  /// A width-1 manager, suspended, so that work stays pending until the test resumes it.
  private func suspendedManager(_ name: String) -> OperationQueueManager {
    let manager = OperationQueueManager(name: name, maxConcurrentOperationCount: 1)
    manager.isSuspended = true
    return manager
  }

  @Test func theUrgentCallerLeavingLowersSharedWorkBehindOlderWork() async throws {
    let manager = suspendedManager("priority.leave")
    let log = EventLog(manager)
    let older = ManualOperation(key: 1)
    let shared = ManualOperation(key: 2)
    let olderTask = Task(priority: .medium) { try await manager.perform(older) }
    #expect(await log.wait(for: .enqueued, of: older))
    let lowTask = Task(priority: .low) { try await manager.perform(shared) }
    #expect(await log.wait(for: .enqueued, of: shared))
    let urgent = Task(priority: .high) { try await manager.perform(ManualOperation(key: 2)) }
    #expect(await log.wait(for: .joined, of: shared))
    #expect(shared.queuePriority == .high)

    urgent.cancel()
    await expectCancellation(of: urgent)
    // Lowered before the leaving caller resumed.
    #expect(shared.queuePriority == .low)

    manager.isSuspended = false
    #expect(await older.started.wait())
    #expect(shared.mainCalls.value == 0)
    older.release(1)
    #expect(await shared.started.wait())
    shared.release(2)
    await expectValue(1, from: olderTask)
    await expectValue(2, from: lowTask)
    #expect(await becomesIdle(manager))
  }

  @Test func aCallerWhoseDeadlinePassesLowersSharedWork() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(
      name: "priority.deadline", maxConcurrentOperationCount: 1, clock: clock)
    manager.isSuspended = true
    let log = EventLog(manager)
    let older = ManualOperation(key: 1)
    let shared = ManualOperation(key: 2)
    let olderTask = Task { try await manager.perform(older, priority: .normal) }
    #expect(await log.wait(for: .enqueued, of: older))
    let lowTask = Task { try await manager.perform(shared, priority: .low) }
    #expect(await log.wait(for: .enqueued, of: shared))
    let urgent = Task {
      try await manager.perform(ManualOperation(key: 2), priority: .veryHigh, timeout: .seconds(1))
    }
    #expect(await log.wait(for: .joined, of: shared))
    #expect(shared.queuePriority == .veryHigh)

    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(1))
    let error = await error(of: urgent)
    #expect((error as? OperationTimeoutError)?.scope == .caller)
    #expect(shared.queuePriority == .low)

    manager.isSuspended = false
    #expect(await older.started.wait())
    #expect(shared.mainCalls.value == 0)
    older.release(1)
    shared.release(2)
    await expectValue(1, from: olderTask)
    await expectValue(2, from: lowTask)
  }

  @Test func escalatingAWaitingTaskRaisesTheWorkItWaitsFor() async throws {
    let manager = suspendedManager("priority.escalate")
    let log = EventLog(manager)
    let older = ManualOperation(key: 1)
    let later = ManualOperation(key: 2)
    let olderTask = Task(priority: .medium) { try await manager.perform(older) }
    #expect(await log.wait(for: .enqueued, of: older))
    let lowTask = Task(priority: .low) { try await manager.perform(later) }
    #expect(await log.wait(for: .enqueued, of: later))
    #expect(later.queuePriority == .low)

    lowTask.escalatePriority(to: .high)
    // The runtime calls the handler while the task waits, or the task finds itself escalated
    // on its way to waiting: either way without anything else happening.
    #expect(await eventually { later.queuePriority == .high })

    manager.isSuspended = false
    #expect(await later.started.wait())
    #expect(older.mainCalls.value == 0)
    later.release(2)
    #expect(await older.started.wait())
    older.release(1)
    await expectValue(1, from: olderTask)
    await expectValue(2, from: lowTask)
  }

  @Test func anEscalatedCallerLeavingLowersTheWorkAgain() async throws {
    let manager = suspendedManager("priority.escalateLeave")
    let log = EventLog(manager)
    let shared = ManualOperation(key: 1)
    let mediumTask = Task(priority: .medium) { try await manager.perform(shared) }
    #expect(await log.wait(for: .enqueued, of: shared))
    let lowTask = Task(priority: .low) { try await manager.perform(ManualOperation(key: 1)) }
    #expect(await log.wait(for: .joined, of: shared))
    #expect(shared.queuePriority == .normal)

    lowTask.escalatePriority(to: .high)
    #expect(await eventually { shared.queuePriority == .high })
    lowTask.cancel()
    await expectCancellation(of: lowTask)
    #expect(shared.queuePriority == .normal)

    // Escalating a task that has left changes nothing.
    lowTask.escalatePriority(to: .high)
    #expect(shared.queuePriority == .normal)
    manager.isSuspended = false
    #expect(await shared.started.wait())
    shared.release(1)
    await expectValue(1, from: mediumTask)
  }

  @Test func aCompletionHandlersPriorityCountsUntilTheWorkSettles() async throws {
    let manager = suspendedManager("priority.handler")
    let log = EventLog(manager)
    let shared = ManualOperation(key: 1)
    let handled = Gate()
    manager.enqueue(shared, priority: .low) { (_: Result<Int, any Error>) in handled.open() }
    #expect(await log.wait(for: .enqueued, of: shared))
    let high = Task { try await manager.perform(ManualOperation(key: 1), priority: .high) }
    #expect(await log.wait(for: .joined, of: shared))
    let veryLow = Task {
      try await manager.perform(ManualOperation(key: 1), priority: .veryLow)
    }
    #expect(await log.wait(for: .joined, of: shared, count: 2))
    #expect(shared.queuePriority == .high)

    high.cancel()
    await expectCancellation(of: high)
    // The handler's `.low` is the highest left.
    #expect(shared.queuePriority == .low)
    veryLow.cancel()
    await expectCancellation(of: veryLow)
    #expect(shared.queuePriority == .low)
    #expect(!shared.isCancelled)

    manager.isSuspended = false
    #expect(await shared.started.wait())
    shared.release(1)
    #expect(await handled.wait())
  }

  @Test func withoutAStatedPriorityTheOperationsOwnIsTheFloor() async throws {
    let manager = suspendedManager("priority.own")
    let log = EventLog(manager)
    let shared = ManualOperation(key: 1)
    shared.queuePriority = .high
    manager.enqueue(shared) { (_: Result<Int, any Error>) in }
    #expect(await log.wait(for: .enqueued, of: shared))
    let urgent = Task { try await manager.perform(ManualOperation(key: 1), priority: .veryHigh) }
    #expect(await log.wait(for: .joined, of: shared))
    #expect(shared.queuePriority == .veryHigh)
    urgent.cancel()
    await expectCancellation(of: urgent)
    #expect(shared.queuePriority == .high)
    manager.isSuspended = false
    #expect(await shared.started.wait())
    shared.release(1)
    #expect(await becomesIdle(manager))
  }

  @Test func workWithAQualityOfServiceIsReorderedToo() async throws {
    let manager = suspendedManager("priority.qos")
    let log = EventLog(manager)
    let older = ManualOperation(key: 1)
    let later = ManualOperation(key: 2)
    later.qualityOfService = .utility
    let olderTask = Task { try await manager.perform(older, priority: .normal) }
    #expect(await log.wait(for: .enqueued, of: older))
    let laterTask = Task { try await manager.perform(later, priority: .normal) }
    #expect(await log.wait(for: .enqueued, of: later))
    let urgent = Task { try await manager.perform(ManualOperation(key: 2), priority: .high) }
    #expect(await log.wait(for: .joined, of: later))

    manager.isSuspended = false
    #expect(await later.started.wait())
    #expect(older.mainCalls.value == 0)
    later.release(2)
    older.release(1)
    await expectValue(1, from: olderTask)
    await expectValue(2, from: laterTask)
    await expectValue(2, from: urgent)
  }

  @Test func anAsyncOperationsTaskIsEscalatedWhenAnUrgentCallerJoinsWhileItRuns() async throws {
    let manager = OperationQueueManager(name: "priority.run")
    let log = EventLog(manager)
    let running = Gate()
    let proceed = Gate()
    let low = Task {
      try await manager.run(key: "work", priority: .low) { () -> UInt8 in
        running.open()
        _ = await proceed.wait()
        return Task.currentPriority.rawValue
      }
    }
    #expect(await running.wait())
    let high = Task {
      try await manager.run(key: "work", priority: .high) { () -> UInt8 in 0 }
    }
    #expect(await log.wait(count: 1) { $0.kind == .joined })
    proceed.open()
    let priority = try await low.value
    #expect(priority >= TaskPriority.high.rawValue)
    #expect(try await high.value == priority)
  }

  @Test func escalatingARunsCallerEscalatesTheTaskRunningItsClosure() async throws {
    // An unbounded queue that is not suspended: the closure's task is what an escalation
    // reaches.
    let manager = OperationQueueManager(name: "priority.runEscalation")
    let running = Gate()
    let proceed = Gate()
    let caller = Task(priority: .low) {
      try await manager.run(key: "work") { () -> UInt8 in
        running.open()
        _ = await proceed.wait()
        return Task.currentPriority.rawValue
      }
    }
    #expect(await running.wait())
    caller.escalatePriority(to: .high)
    // The caller may still be on its way to waiting: it then finds itself escalated there.
    #expect(
      await eventually {
        manager.inFlightOperation(AsyncOperation<UInt8>.self, key: "work")?.queuePriority == .high
      })
    proceed.open()
    #expect(try await caller.value >= TaskPriority.high.rawValue)
  }

  @Test func aSubclassIsToldOfEveryChangeAndWhetherItWasExecuting() async throws {
    let manager = suspendedManager("priority.hook")
    let log = EventLog(manager)
    let shared = PriorityRecordingOperation(key: 1)
    let first = Task { try await manager.perform(shared, priority: .low) }
    #expect(await log.wait(for: .enqueued, of: shared))
    let urgent = Task {
      try await manager.perform(PriorityRecordingOperation(key: 1), priority: .high)
    }
    #expect(await log.wait(for: .joined, of: shared))
    urgent.cancel()
    await expectCancellation(of: urgent)
    manager.isSuspended = false
    #expect(await shared.started.wait())
    let whileRunning = Task {
      try await manager.perform(PriorityRecordingOperation(key: 1), priority: .veryHigh)
    }
    #expect(await log.wait(for: .joined, of: shared, count: 2))
    shared.release(1)
    await expectValue(1, from: first)
    await expectValue(1, from: whileRunning)
    #expect(
      shared.changes.values == [
        .init(priority: .high, whileExecuting: false), .init(priority: .low, whileExecuting: false),
        .init(priority: .veryHigh, whileExecuting: true),
      ])
  }
}

/// Records the priority changes it is told of.
private final class PriorityRecordingOperation: TestOperation<any Error>, @unchecked Sendable {
  struct Change: Equatable, Sendable {
    let priority: Operation.QueuePriority
    let whileExecuting: Bool
  }

  let changes = Recorder<Change>()

  override func priorityDidChange(to priority: Operation.QueuePriority, whileExecuting: Bool) {
    changes.record(Change(priority: priority, whileExecuting: whileExecuting))
  }
}
