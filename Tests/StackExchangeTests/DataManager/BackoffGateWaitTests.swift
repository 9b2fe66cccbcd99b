import AsyncBridge
import FixtureServer
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

@testable import StackExchange

/// The end of a gate's wait decides on the advancing thread: it admits the request, waits again
/// for a longer backoff recorded meanwhile, or ends the wait for one too long.
@Suite struct BackoffGateWaitTests {
  @Test func aLongerBackoffRecordedDuringTheWaitIsWaitedOutBeforeAdmitting() async throws {
    let clock = TestClock()
    let gate = BackoffGate(clock: OperationQueueManager(name: "gate", clock: clock).clock)
    let admitted = AsyncCounter()
    gate.record(backoff: 5, site: "stackoverflow")
    let wait = Task {
      try await gate.whenOpen(site: "stackoverflow", longest: .seconds(60)) {
        admitted.increment()
      }
    }
    try await clock.waitUntilTimers(1)
    gate.record(backoff: 10, site: "stackoverflow")

    await clock.advance(by: .seconds(5))
    #expect(admitted.value == 0)
    // The task waits again, on its own executor, for the later deadline.
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(5))
    #expect(admitted.value == 1, "admitted before the advance returned")
    let (request, waited) = try await wait.value
    #expect(request == 1)
    #expect(waited == .seconds(10))
  }

  @Test func aBackoffRecordedDuringTheWaitPastTheLongestEndsIt() async throws {
    let clock = TestClock()
    let gate = BackoffGate(clock: OperationQueueManager(name: "gate", clock: clock).clock)
    let admitted = AsyncCounter()
    gate.record(backoff: 5, site: "stackoverflow")
    let wait = Task {
      try await gate.whenOpen(site: "stackoverflow", longest: .seconds(60)) {
        admitted.increment()
      }
    }
    try await clock.waitUntilTimers(1)
    gate.record(backoff: 100, site: "stackoverflow")

    await clock.advance(by: .seconds(5))
    #expect(clock.pendingTimers == 0)
    await #expect(throws: BackoffError(site: "stackoverflow", retryAfter: .seconds(95))) {
      try await wait.value
    }
    #expect(admitted.value == 0)
  }

  @Test func cancellingTheWaitTakesItsEntryOutAndNeverAdmits() async throws {
    let clock = TestClock()
    let gate = BackoffGate(clock: OperationQueueManager(name: "gate", clock: clock).clock)
    let admitted = AsyncCounter()
    gate.record(backoff: 5, site: "stackoverflow")
    let wait = Task {
      try await gate.whenOpen(site: "stackoverflow", longest: .seconds(60)) {
        admitted.increment()
      }
    }
    try await clock.waitUntilTimers(1)
    wait.cancel()
    await #expect(throws: CancellationError.self) { try await wait.value }
    #expect(clock.pendingTimers == 0)
    await clock.advance(by: .seconds(5))
    #expect(admitted.value == 0)
  }
}
