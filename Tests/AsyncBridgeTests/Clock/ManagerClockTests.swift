import AsyncBridge
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// A manager's clock, read and waited on through public API only, driven by a test clock.
@Suite struct ManagerClockTests {
  @Test func readsTheTimeOfTheClockTheManagerWasMadeWith() async {
    let clock = TestClock()
    let managerClock = OperationQueueManager(name: "clock.read", clock: clock).clock
    let start = managerClock.now

    await clock.advance(by: .seconds(5))

    #expect(start.duration(to: managerClock.now) == .seconds(5))
    #expect(start.advanced(by: .seconds(5)) == managerClock.now)
    #expect(start < managerClock.now)
  }

  @Test func aSleepEndsWhenTheClockReachesItsDeadline() async throws {
    let clock = TestClock()
    let managerClock = OperationQueueManager(name: "clock.sleep", clock: clock).clock
    let deadline = managerClock.now.advanced(by: .seconds(2))
    let sleeper = Task {
      try await managerClock.sleep(until: deadline)
      return managerClock.now
    }
    try await clock.waitUntilTimers(1)

    await clock.advance(by: .milliseconds(1_999))
    let stillSleeping = clock.pendingTimers == 1
    await clock.advance(by: .milliseconds(1))
    let woke = await completing { try? await sleeper.value }

    #expect(stillSleeping)
    #expect(woke == deadline)
    #expect(clock.pendingTimers == 0)
  }

  @Test func sleepingForADurationWaitsOnTheManagersClock() async throws {
    let clock = TestClock()
    let managerClock = OperationQueueManager(name: "clock.sleep-for", clock: clock).clock
    let sleeper = Task { try await managerClock.sleep(for: .seconds(30)) }
    try await clock.waitUntilTimers(1)

    await clock.advance(by: .seconds(30))
    let woke = await completing { (try? await sleeper.value) != nil }

    #expect(woke == true)
  }

  /// A deadline the clock has reached runs the action at once, on the calling task, with no
  /// timer set.
  @Test func aReachedDeadlineRunsTheActionAtOnce() async throws {
    let clock = TestClock()
    let managerClock = OperationQueueManager(name: "clock.reached", clock: clock).clock
    await clock.advance(by: .seconds(1))

    let value = try await managerClock.sleep(until: managerClock.now.advanced(by: .seconds(-1))) {
      42
    }
    try await managerClock.sleep(until: managerClock.now)

    #expect(value == 42)
    #expect(clock.pendingTimers == 0)
  }

  /// The action runs on the advancing thread: what it did has happened when the advance
  /// returns, before the waiting task runs again.
  @Test func theActionRunsBeforeTheAdvanceReturns() async throws {
    let clock = TestClock()
    let managerClock = OperationQueueManager(name: "clock.action", clock: clock).clock
    let ran = AsyncCounter()
    let deadline = managerClock.now.advanced(by: .seconds(3))
    let sleeper = Task {
      try await managerClock.sleep(until: deadline) { () -> Duration in
        ran.increment()
        return deadline.duration(to: managerClock.now)
      }
    }
    try await clock.waitUntilTimers(1)

    await clock.advance(by: .seconds(3))
    let ranByThen = ran.value

    #expect(ranByThen == 1)
    #expect(try await sleeper.value == .zero, "the clock read the deadline as the action ran")
  }

  @Test func anErrorTheActionThrowsEndsTheWait() async throws {
    let clock = TestClock()
    let managerClock = OperationQueueManager(name: "clock.throws", clock: clock).clock
    let deadline = managerClock.now.advanced(by: .seconds(1))
    let sleeper = Task {
      try await managerClock.sleep(until: deadline) { () throws -> Int in
        throw TestFailure.broken(1)
      }
    }
    try await clock.waitUntilTimers(1)

    await clock.advance(by: .seconds(1))

    await #expect(throws: TestFailure.broken(1)) { try await sleeper.value }
  }
}
