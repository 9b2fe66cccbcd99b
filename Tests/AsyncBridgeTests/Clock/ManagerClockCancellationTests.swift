import AsyncBridge
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// Cancelling a wait on a manager's clock: before the task suspends, while it waits, and racing
/// the deadline.
@Suite struct ManagerClockCancellationTests {
  @Test func aTaskCancelledBeforeItWaitsThrowsAndSetsNoTimer() async throws {
    let clock = TestClock()
    let managerClock = OperationQueueManager(name: "clock.cancel-early", clock: clock).clock
    let ran = AsyncCounter()
    let future = managerClock.now.advanced(by: .seconds(1))
    let cancelled = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await managerClock.sleep(until: future) { ran.increment() }
    }
    let reached = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await managerClock.sleep(until: managerClock.now) { ran.increment() }
    }

    await #expect(throws: CancellationError.self) { try await cancelled.value }
    await #expect(throws: CancellationError.self) { try await reached.value }
    #expect(clock.pendingTimers == 0)
    await clock.advance(by: .seconds(1))
    #expect(ran.value == 0)
  }

  @Test func cancellingAWaitingTaskEndsItAtOnceTakesItsTimerOutAndNeverRunsTheAction()
    async throws
  {
    let clock = TestClock()
    let managerClock = OperationQueueManager(name: "clock.cancel-late", clock: clock).clock
    let ran = AsyncCounter()
    let deadline = managerClock.now.advanced(by: .seconds(10))
    let sleeper = Task { try await managerClock.sleep(until: deadline) { ran.increment() } }
    try await clock.waitUntilTimers(1)

    sleeper.cancel()

    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.pendingTimers == 0)
    await clock.advance(by: .seconds(10))
    #expect(ran.value == 0)
  }

  /// The task is resumed exactly once (its continuation is checked); the action runs exactly
  /// when the task got its value.
  @Test func cancellationRacingTheDeadlineResumesOnceAndRunsTheActionOnlyForAValue()
    async throws
  {
    let ran = AsyncCounter()
    var returned = 0
    for _ in 0..<200 {
      let clock = TestClock()
      let managerClock = OperationQueueManager(name: "clock.cancel-race", clock: clock).clock
      let deadline = managerClock.now.advanced(by: .seconds(1))
      let sleeper = Task { try await managerClock.sleep(until: deadline) { ran.increment() } }
      try await clock.waitUntilTimers(1)
      async let advanced: Void = clock.advance(by: .seconds(1))
      sleeper.cancel()
      await advanced
      switch await sleeper.result {
      case .success: returned += 1
      case .failure(let error): #expect(error is CancellationError, "got \(error)")
      }
      #expect(clock.pendingTimers == 0)
    }
    #expect(ran.value == returned)
  }
}
