import AsyncBridge
import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// A caller's own deadline (`perform(_:timeout:)`, `run(key:timeout:_:)`, `value(timeout:)`):
/// at the deadline that caller leaves with `OperationTimeoutError` (scope `.caller`), exactly
/// like a cancelled waiter; the shared work goes on for the others and is cancelled only when
/// the last waiter has left. Deadlines run on a test clock: each test advances it once the
/// callers have registered them.
@Suite struct CallerDeadlineTests {
  /// A caller's deadline; only the test clock ever reaches it.
  static let deadline = Duration.milliseconds(50)

  @Test func aDeadlineLeavesOnlyThatCallerWhileTheQueueIsSuspended() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "deadline.one", clock: clock)
    manager.isSuspended = true
    let log = EventLog(manager)
    let working = ManualOperation(key: 1, ending: .returning(7))
    let patient = Task { try await manager.perform(working) }
    #expect(await log.wait { $0.kind == .enqueued })
    let hurried = Task {
      try await manager.perform(ManualOperation(key: 1), timeout: Self.deadline)
    }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: Self.deadline)
    let outcome = try #require(await result(of: hurried, within: .seconds(30)))
    let error = try #require(outcome.failure as? OperationTimeoutError, "got \(outcome)")
    #expect(error.scope == .caller)
    #expect(error.timeout == Self.deadline)
    #expect(!working.isCancelled, "the shared operation was cancelled by one caller's deadline")
    manager.isSuspended = false
    await expectValue(7, from: patient, within: .seconds(30))
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  @Test func theLastWaitersDeadlineCancelsTheOperation() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "deadline.last", clock: clock)
    manager.isSuspended = true
    let operation = ManualOperation(key: 2)
    let task = Task { try await manager.perform(operation, timeout: Self.deadline) }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: Self.deadline)
    let outcome = try #require(await result(of: task, within: .seconds(30)))
    #expect((outcome.failure as? OperationTimeoutError)?.scope == .caller)
    // The leaving caller is resumed first, then the operation it leaves is cancelled.
    #expect(operation.isCancelled)
    manager.isSuspended = false
    #expect(await becomesIdle(manager, within: .seconds(30)))
    #expect(operation.mainCallCount == 0)
  }

  @Test func aCompletionHandlerKeepsTheWorkAliveAfterADeadline() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "deadline.handler", clock: clock)
    let operation = ManualOperation(key: 3)
    let handler = Recorder<Result<Int, any Error>>()
    manager.enqueue(operation) { handler.record($0) }
    #expect(await operation.started.wait(timeout: .seconds(30)))
    // An operation's caller waits on the clock of the manager that claimed it.
    let task = Task { try await operation.value(timeout: Self.deadline) }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: Self.deadline)
    let outcome = try #require(await result(of: task, within: .seconds(30)))
    #expect((outcome.failure as? OperationTimeoutError)?.scope == .caller)
    #expect(!operation.isCancelled)
    operation.release(3)
    #expect(await handler.wait(forCount: 1, timeout: .seconds(30)))
    #expect(try handler.values.first?.get() == 3)
  }

  @Test func aTypedCallerGetsItsOwnTimeoutCase() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "deadline.typed", clock: clock)
    manager.isSuspended = true
    let operation = TestOperation<TestFailure>(key: 4)
    let task = Task { () async -> TestFailure? in
      do throws(TestFailure) {
        _ = try await manager.perform(operation, timeout: Self.deadline)
        return nil
      } catch {
        return error
      }
    }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: Self.deadline)
    #expect(await value(of: task, within: .seconds(30)) == .timedOut(Self.deadline))
    manager.isSuspended = false
  }

  @Test func runTakesADeadlineAndCancelsItsClosure() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "deadline.run", clock: clock)
    let entered = Gate()
    let stopped = Gate()
    let task = Task {
      try await manager.run(key: "slow", timeout: Self.deadline) { () async throws -> Int in
        entered.open()
        do {
          try await Task.sleep(for: .seconds(60))
        } catch {
          stopped.open()
          throw error
        }
        return 1
      }
    }
    try await clock.waitUntilTimers(1)
    // The closure runs before the deadline passes: a caller leaving pending work cancels it
    // before it starts, and the closure would never run.
    #expect(await entered.wait(timeout: .seconds(30)))
    await clock.advance(by: Self.deadline)
    let outcome = try #require(await result(of: task, within: .seconds(30)))
    #expect((outcome.failure as? OperationTimeoutError)?.scope == .caller)
    #expect(
      await stopped.wait(timeout: .seconds(30)), "the closure's task was not cancelled")
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  @Test func aValueBeforeTheDeadlineStandsAndTheDeadlineDoesNothingLater() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "deadline.early", clock: clock)
    let operation = ManualOperation(key: 5, ending: .returning(5))
    let value = try await withDeadline(.seconds(30)) {
      try await manager.perform(operation, timeout: .milliseconds(20))
    }
    #expect(value == 5)
    // Past the deadline: the caller took its deadline out, and nothing fires.
    #expect(clock.pendingTimers == 0)
    await clock.advance(by: .milliseconds(40))
    #expect(!operation.isCancelled)
    #expect(operation.result.map { try? $0.get() } == 5)
  }

  /// The operation's own `timeout` is a different limit: it fails every waiter, with scope
  /// `.operation`, and stops the work.
  @Test func theOperationsOwnTimeoutFailsEveryWaiter() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "deadline.own", clock: clock)
    // Suspended until the second caller has joined, so both wait on the one that times out.
    manager.isSuspended = true
    let log = EventLog(manager)
    let operation = ManualOperation(key: 6)
    operation.timeout = .milliseconds(30)
    let first = Task { try await manager.perform(operation) }
    #expect(await log.wait { $0.kind == .enqueued })
    let second = Task { try await manager.perform(ManualOperation(key: 6)) }
    #expect(await log.wait { $0.kind == .joined })
    manager.isSuspended = false
    // The operation's timeout is armed when it starts.
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .milliseconds(30))
    for task in [first, second] {
      let outcome = try #require(await result(of: task, within: .seconds(30)))
      #expect((outcome.failure as? OperationTimeoutError)?.scope == .operation)
    }
    #expect(operation.isCancelled)
  }

  /// Limits past `Int64.max` seconds (a caller's deadline, an operation's timeout, the stall
  /// threshold) mean "never" and trap nowhere: turning one into Dispatch's seconds read
  /// `Duration.components`, which traps there.
  @Test func limitsPastTheLongestDurationInSecondsNeverFireAndNeverTrap() async throws {
    let beyond = Duration.seconds(Int64.max) + .seconds(1)
    let manager = OperationQueueManager(name: "deadline.beyond")
    manager.stallThreshold = beyond
    let operation = ManualOperation(key: 1)
    operation.timeout = beyond
    let task = Task { try await manager.perform(operation, timeout: beyond) }
    #expect(await operation.started.wait())
    operation.release(5)
    await expectValue(5, from: task)
    #expect(await becomesIdle(manager))
  }

  /// 10,000 callers with deadlines on one pending operation: every deadline fires, each caller
  /// leaves with the caller's timeout, and the process gains no thread per deadline (they are
  /// entries of the manager's scheduler, not sleeping threads).
  @Test func tenThousandDeadlinesHoldNoThreadEach() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "deadline.many", clock: clock)
    manager.isSuspended = true
    let log = EventLog(manager)
    let operation = ManualOperation(key: 7)
    let anchor = Task { try await manager.perform(operation) }
    #expect(await log.wait { $0.kind == .enqueued })
    let threadsBefore = try Self.threadCount()
    let timedOut = AsyncCounter()
    let callers = 10_000
    let tasks = (0..<callers).map { _ in
      Task {
        do {
          _ = try await manager.perform(ManualOperation(key: 7), timeout: .milliseconds(200))
        } catch let error as OperationTimeoutError where error.scope == .caller {
          timedOut.increment()
        }
      }
    }
    try await clock.waitUntilTimers(callers)
    // Every deadline is armed now. Other suites in this process start and end threads too, so
    // the bound is far below one thread per deadline rather than zero.
    let threadsMeanwhile = try Self.threadCount()
    await clock.advance(by: .milliseconds(200))
    #expect(await timedOut.wait(untilAtLeast: callers, timeout: .seconds(30)))
    for task in tasks { _ = await result(of: task, within: .seconds(30)) }
    #expect(
      threadsMeanwhile - threadsBefore < callers / 20,
      "threads grew from \(threadsBefore) to \(threadsMeanwhile) with \(callers) deadlines")
    #expect(!operation.isCancelled, "the anchor caller still waits")
    anchor.cancel()
    manager.isSuspended = false
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  /// The process's thread count, from /proc/self/status on Linux, where a missing count fails
  /// the test; 0 on Apple platforms, which have no /proc, so the thread bound holds trivially
  /// there.
  static func threadCount() throws -> Int {
    #if os(Linux)
      let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
      let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
      return try #require(
        line.flatMap { Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) },
        "no thread count in /proc/self/status")
    #else
      return 0
    #endif
  }
}
