import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Awaiting tasks that share one coalesced operation, and their cancellation.
@Suite struct CoalescingTests {
  /// Starts `count` tasks performing operations with `key`: the first with `operation`, the
  /// others with fresh instances that join it. Returns once all are registered.
  private func waiters(
    _ count: Int, on operation: ManualOperation, key: Int, manager: OperationQueueManager,
    log: EventLog
  ) async -> (tasks: [Task<Int, any Error>], joiners: [ManualOperation]) {
    var tasks = [Task { try await manager.perform(operation) }]
    #expect(await log.wait(for: .enqueued, of: operation))
    var joiners: [ManualOperation] = []
    for _ in 1..<count {
      let joiner = ManualOperation(key: key)
      joiners.append(joiner)
      tasks.append(Task { try await manager.perform(joiner) })
    }
    #expect(await log.wait(for: .joined, of: operation, count: count - 1))
    return (tasks, joiners)
  }

  @Test func waitersOnOneKeyShareOneExecution() async throws {
    let manager = OperationQueueManager(name: "coalesce.share")
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let (tasks, joiners) = await waiters(4, on: operation, key: 1, manager: manager, log: log)
    #expect(await operation.started.wait())
    operation.release(42)
    for task in tasks { await expectValue(42, from: task) }
    #expect(operation.mainCalls.value == 1)
    #expect(joiners.allSatisfy { $0.mainCalls.value == 0 })
    #expect(await becomesIdle(manager))
  }

  @Test func cancellingOneWaiterKeepsSharedWorkRunning() async throws {
    let manager = OperationQueueManager(name: "coalesce.cancelOne")
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let (tasks, _) = await waiters(4, on: operation, key: 1, manager: manager, log: log)
    #expect(await operation.started.wait())

    // The task that enqueued the work leaves; the others still want it.
    tasks[0].cancel()
    await expectCancellation(of: tasks[0], within: .seconds(30))
    #expect(!operation.isCancelled)
    #expect(operation.isExecuting)
    #expect(operation.cancelHookCalls.value == 0)

    operation.release(42)
    for task in tasks.dropFirst() { await expectValue(42, from: task) }
    #expect(operation.mainCalls.value == 1)
    #expect(await becomesIdle(manager))
  }

  @Test func cancellingEveryWaiterCancelsExecutingWorkExactlyOnce() async throws {
    let manager = OperationQueueManager(name: "coalesce.cancelAllExecuting")
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let (tasks, joiners) = await waiters(4, on: operation, key: 1, manager: manager, log: log)
    #expect(await operation.started.wait())

    for task in tasks { task.cancel() }
    for task in tasks { await expectCancellation(of: task, within: .seconds(30)) }
    #expect(operation.isCancelled)
    #expect(operation.cancelHookCalls.value == 1)
    #expect(joiners.allSatisfy { $0.cancelHookCalls.value == 0 && $0.mainCalls.value == 0 })
    #expect(await becomesIdle(manager))
    #expect(await log.flush(manager))
    #expect(log.events(.finished(.cancelled), of: operation).count == 1)
    #expect(log.events(.finished(.success), of: operation).isEmpty)
  }

  @Test func cancellingEveryWaiterInASuspendedQueueCancelsOnceAndDrainsOnResume() async throws {
    let manager = OperationQueueManager(name: "coalesce.cancelAllSuspended")
    manager.isSuspended = true
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let (tasks, _) = await waiters(4, on: operation, key: 1, manager: manager, log: log)

    // Cancel concurrently, from several threads at once.
    DispatchQueue.concurrentPerform(iterations: tasks.count) { tasks[$0].cancel() }
    for task in tasks { await expectCancellation(of: task, within: .seconds(30)) }
    #expect(operation.isCancelled)
    #expect(manager.isSuspended)
    #expect(manager.outstandingOperationCount == 1)

    manager.isSuspended = false
    #expect(await becomesIdle(manager))
    #expect(manager.outstandingOperationCount == 0)
    #expect(operation.mainCalls.value == 0)
    #expect(await log.flush(manager))
    #expect(log.events(.finished(.cancelled), of: operation).count == 1)
    // The cancelled work is no longer joinable: a new request starts fresh work.
    let fresh = ManualOperation(key: 1)
    let freshTask = Task { try await manager.perform(fresh) }
    #expect(await fresh.started.wait())
    fresh.release(1)
    await expectValue(1, from: freshTask)
  }

  @Test func completionHandlerAndAsyncWaitersShareOneExecution() async throws {
    let manager = OperationQueueManager(name: "coalesce.mixed")
    manager.isSuspended = true
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let handlerResults = Locked<[Int]>([])
    let handlersDone = AsyncCounter()

    let first = manager.enqueue(operation) { result in
      if case .success(let value) = result { handlerResults.withLock { $0.append(value) } }
      handlersDone.increment()
    }
    #expect(first === operation)
    let asyncTask = Task { try await manager.perform(ManualOperation(key: 1)) }
    #expect(await log.wait(for: .joined, of: operation, count: 1))
    let second = manager.enqueue(ManualOperation(key: 1)) { result in
      if case .success(let value) = result { handlerResults.withLock { $0.append(value) } }
      handlersDone.increment()
    }
    #expect(second === operation)
    let lateTask = Task { try await manager.perform(ManualOperation(key: 1)) }
    #expect(await log.wait(for: .joined, of: operation, count: 3))
    #expect(manager.outstandingOperationCount == 1)

    manager.isSuspended = false
    #expect(await operation.started.wait())
    operation.release(8)
    await expectValue(8, from: asyncTask)
    await expectValue(8, from: lateTask)
    #expect(await handlersDone.wait(untilAtLeast: 2))
    #expect(handlerResults.withLock { $0 } == [8, 8])
    #expect(operation.mainCalls.value == 1)
    #expect(await becomesIdle(manager))
  }

  @Test func completionHandlerWaiterKeepsWorkAliveWhenAsyncWaitersLeave() async throws {
    let manager = OperationQueueManager(name: "coalesce.handlerKeepsAlive")
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let (tasks, _) = await waiters(2, on: operation, key: 1, manager: manager, log: log)
    let handlerResult = Locked<Result<Int, any Error>?>(nil)
    let handlerDone = Gate()
    manager.enqueue(ManualOperation(key: 1)) { result in
      handlerResult.withLock { $0 = result }
      handlerDone.open()
    }
    #expect(await log.wait(for: .joined, of: operation, count: 2))
    #expect(await operation.started.wait())

    for task in tasks { task.cancel() }
    for task in tasks { await expectCancellation(of: task, within: .seconds(30)) }
    #expect(!operation.isCancelled)
    #expect(operation.cancelHookCalls.value == 0)
    #expect(!handlerDone.isOpen)

    operation.release(5)
    #expect(await handlerDone.wait())
    #expect(try handlerResult.withLock { try $0?.get() } == 5)
    #expect(await becomesIdle(manager))
  }

  @Test func concurrentCallersWithOneKeyShareOneOperation() async throws {
    let manager = OperationQueueManager(name: "coalesce.concurrent")
    manager.isSuspended = true
    let log = EventLog(manager)
    let callers = 64
    let operations = (0..<callers).map { _ in ManualOperation(key: 1) }
    let start = Gate()
    var tasks: [Task<Int, any Error>] = []
    for operation in operations {
      tasks.append(
        Task.detached {
          await start.wait()
          return try await manager.perform(operation)
        })
    }
    start.open()
    #expect(
      await log.wait(count: callers) { $0.kind == .enqueued || $0.kind == .joined })
    let enqueued = log.events.filter { $0.kind == .enqueued }
    #expect(enqueued.count == 1, "\(enqueued.count) operations enqueued for one key")
    #expect(manager.outstandingOperationCount == 1)

    manager.isSuspended = false
    #expect(await log.wait { $0.kind == .started })
    for operation in operations { operation.release(1) }
    for task in tasks { await expectValue(1, from: task) }
    #expect(operations.map(\.mainCalls.value).reduce(0, +) == 1)
    #expect(await becomesIdle(manager))
  }
}
