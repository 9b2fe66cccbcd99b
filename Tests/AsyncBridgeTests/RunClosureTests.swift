import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// The reverse bridge: `manager.run { }` and `AsyncOperation` put async closures under queue
/// control.
@Suite struct RunClosureTests {
  @Test func runReturnsTheClosuresValue() async throws {
    let manager = OperationQueueManager(name: "run.value")
    #expect(try await withDeadline { try await manager.run { 42 } } == 42)
    #expect(try await withDeadline { try await manager.run(key: "k") { "keyed" } } == "keyed")
    #expect(await becomesIdle(manager))
  }

  @Test func runRethrowsTheClosuresError() async throws {
    let manager = OperationQueueManager(name: "run.error")
    await #expect(throws: TestFailure.broken(1)) {
      try await withDeadline {
        try await manager.run { () async throws -> Int in throw TestFailure.broken(1) }
      }
    }
    #expect(await becomesIdle(manager))
  }

  /// A trace identifier, as a tracing library keeps one.
  enum Trace {
    @TaskLocal static var requestID = "none"
  }

  /// The closure runs in a task the queue's start makes, outside the caller's: it sees none of
  /// the caller's task-local values (AsyncBridge's "Whose context the work sees").
  @Test func aRunClosureSeesNoneOfTheCallersTaskLocalValues() async throws {
    let manager = OperationQueueManager(name: "run.context")
    let seen = try await Trace.$requestID.withValue("req-1") {
      try await manager.run { Trace.requestID }
    }
    #expect(seen == "none")
  }

  @Test func cancellingTheAwaitingTaskCancelsTheInnerTask() async throws {
    let manager = OperationQueueManager(name: "run.cancelTask")
    let started = Gate()
    let innerSawCancellation = Gate()
    let task = Task {
      try await manager.run { () async throws -> Int in
        started.open()
        do {
          try await Task.sleep(for: .seconds(5))
        } catch is CancellationError {
          if Task.isCancelled { innerSawCancellation.open() }
          throw CancellationError()
        }
        return 1
      }
    }
    #expect(await started.wait())
    task.cancel()
    await expectCancellation(of: task, within: .seconds(30))
    #expect(await innerSawCancellation.wait())
    #expect(await becomesIdle(manager))
  }

  @Test func cancelAllOperationsCancelsTheInnerTask() async throws {
    let manager = OperationQueueManager(name: "run.cancelAll")
    let started = AsyncCounter()
    let innerSawCancellation = AsyncCounter()
    var tasks: [Task<Int, any Error>] = []
    for key in 0..<3 {
      tasks.append(
        Task {
          try await manager.run(key: key) { () async throws -> Int in
            started.increment()
            do {
              try await Task.sleep(for: .seconds(5))
            } catch {
              if Task.isCancelled { innerSawCancellation.increment() }
              throw error
            }
            return key
          }
        })
    }
    #expect(await started.wait(untilAtLeast: 3))
    manager.cancelAllOperations()
    for task in tasks { await expectCancellation(of: task, within: .seconds(30)) }
    #expect(await innerSawCancellation.wait(untilAtLeast: 3))
    #expect(await becomesIdle(manager))
  }

  @Test func asyncOperationHoldsItsSlotUntilTheClosureReturns() async throws {
    let manager = OperationQueueManager(name: "run.slot", maxConcurrentOperationCount: 1)
    let log = EventLog(manager)
    let firstStarted = Gate()
    let letFirstReturn = Gate()
    let firstSawCancellation = Gate()
    let firstReturned = Gate()
    let secondStarted = Gate()
    let secondSawFirstReturned = Gate()

    let firstTaskCancelled = Gate()
    let first = AsyncOperation { () async throws -> Int in
      firstStarted.open()
      _ = await withTaskCancellationHandler {
        await letFirstReturn.wait()  // Ignores cancellation: slow to stop.
      } onCancel: {
        firstTaskCancelled.open()
      }
      if Task.isCancelled { firstSawCancellation.open() }
      firstReturned.open()
      return 1
    }
    let second = AsyncOperation { () async throws -> Int in
      if firstReturned.isOpen { secondSawFirstReturned.open() }
      secondStarted.open()
      return 2
    }
    let firstTask = Task { try await manager.perform(first) }
    #expect(await firstStarted.wait())
    let secondTask = Task { try await manager.perform(second) }
    #expect(await log.wait(for: .enqueued, of: second))

    firstTask.cancel()
    await expectCancellation(of: firstTask, within: .seconds(30))
    #expect(first.isCancelled)
    #expect(first.isExecuting)
    #expect(!first.isFinished)
    #expect(!secondStarted.isOpen)
    #expect(manager.outstandingOperationCount == 2)

    // The closure's task is cancelled after the caller resumes (the hook runs off the caller's
    // thread); it keeps the slot until it returns.
    #expect(await firstTaskCancelled.wait())
    #expect(!secondStarted.isOpen)
    letFirstReturn.open()
    await expectValue(2, from: secondTask)
    #expect(firstSawCancellation.isOpen)
    #expect(secondSawFirstReturned.isOpen)
    #expect(await becomesIdle(manager))
    // The value the first closure returned after cancellation does not replace it.
    #expect(throws: CancellationError.self) { try first.result?.get() }
  }

  /// A cancellation that lands after the queue started an `AsyncOperation` but before its
  /// `main()` ran: the closure never runs and the operation still settles (with cancellation),
  /// which is what releases its slot. Driven step by step: the cancellation hook first, as a
  /// cancel from another thread in that window calls it, then `main()`.
  @Test func asyncOperationCancelledBetweenStartAndMainSettlesWithoutRunning() async throws {
    let ran = Gate()
    let operation = AsyncOperation { () async throws -> Int in
      ran.open()
      return 1
    }
    operation.operationWasCancelled()
    operation.main()
    #expect(
      operation.result.map { EventInvariants.completion(of: $0) } == .cancelled,
      "main() after the cancellation hook did not settle the operation")
    #expect(!ran.isOpen)
  }

  @Test func runWithAKeyCoalescesCalls() async throws {
    let manager = OperationQueueManager(name: "run.coalesce")
    manager.isSuspended = true
    let log = EventLog(manager)
    let executions = AsyncCounter()
    let first = Task {
      try await manager.run(key: "shared") { () async throws -> Int in
        executions.increment()
        return 7
      }
    }
    #expect(await log.wait { $0.kind == .enqueued })
    let second = Task {
      try await manager.run(key: "shared") { () async throws -> Int in
        executions.increment()
        return 8
      }
    }
    #expect(await log.wait { $0.kind == .joined && $0.callerCount == 2 })
    manager.isSuspended = false
    await expectValue(7, from: first)
    await expectValue(7, from: second)
    #expect(executions.value == 1)
    #expect(await becomesIdle(manager))
    #expect(log.events.filter { $0.kind == .enqueued }.count == 1)
  }

  @Test func runWithAKeyJoinsAnAsyncOperationEnqueuedWithThatKey() async throws {
    let manager = OperationQueueManager(name: "run.joinEnqueued")
    manager.isSuspended = true
    let executions = AsyncCounter()
    let handlerValue = Locked<Int?>(nil)
    // Before the enqueue: a subscriber sees the operations admitted after it subscribed.
    let log = EventLog(manager)
    let enqueued = AsyncOperation(coalescingKey: "shared") { () async throws -> Int in
      executions.increment()
      return 1
    }
    manager.enqueue(enqueued) { result in handlerValue.withLock { $0 = try? result.get() } }
    let joining = Task {
      try await manager.run(key: "shared") { () async throws -> Int in
        executions.increment()
        return 2
      }
    }
    #expect(await log.wait { $0.kind == .joined && $0.callerCount == 2 })
    manager.isSuspended = false
    await expectValue(1, from: joining)
    #expect(await becomesIdle(manager))
    #expect(executions.value == 1)
    #expect(handlerValue.withLock { $0 } == 1)
  }

  @Test func runWithAKeyStartsFreshWorkOnceTheSharedRunFinished() async throws {
    let manager = OperationQueueManager(name: "run.lateCaller")
    let executions = AsyncCounter()
    for expected in 1...3 {
      let value = try await manager.run(key: "again") { () async throws -> Int in
        executions.increment()
        return executions.value
      }
      #expect(value == expected)
    }
    #expect(executions.value == 3)
    #expect(await becomesIdle(manager))
  }

  @Test func maxConcurrencyIsHonouredForAsyncClosures() async throws {
    let manager = OperationQueueManager(name: "run.width", maxConcurrentOperationCount: 2)
    let meter = ConcurrencyMeter()
    let started = AsyncCounter()
    var tasks: [Task<Int, any Error>] = []
    for index in 0..<12 {
      tasks.append(
        Task {
          try await manager.run { () async throws -> Int in
            meter.enter()
            started.increment()
            // The first two wait for each other: two at once must be possible.
            _ = await started.wait(untilAtLeast: 2)
            try await Task.sleep(for: .milliseconds(2))
            meter.leave()
            return index
          }
        })
    }
    for (index, task) in tasks.enumerated() { await expectValue(index, from: task) }
    #expect(meter.peak == 2)
    #expect(await becomesIdle(manager))
  }

  @Test func suspensionIsHonouredForAsyncClosures() async throws {
    let manager = OperationQueueManager(name: "run.suspend", maxConcurrentOperationCount: 1)
    let log = EventLog(manager)
    let ran = AsyncCounter()
    let holdFirst = Gate()
    let first = Task {
      try await manager.run { () async throws -> Int in
        ran.increment()
        await holdFirst.wait()
        return 1
      }
    }
    #expect(await ran.wait(untilAtLeast: 1))
    let second = Task {
      try await manager.run { () async throws -> Int in
        ran.increment()
        return 2
      }
    }
    #expect(await log.wait(count: 2) { $0.kind == .enqueued })

    manager.isSuspended = true
    holdFirst.open()
    await expectValue(1, from: first)
    // Give a broken queue every chance to start the second closure while suspended.
    try await Task.sleep(for: .milliseconds(100))
    #expect(ran.value == 1)
    #expect(manager.outstandingOperationCount == 1)

    manager.isSuspended = false
    await expectValue(2, from: second)
    #expect(ran.value == 2)
    #expect(await becomesIdle(manager))
  }
}
