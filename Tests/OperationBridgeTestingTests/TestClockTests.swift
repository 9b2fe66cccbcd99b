import AsyncBridge
import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// What `OperationBridgeTesting` promises: `advance(by:)` returns with the timers' work done
/// inside the layer, and its bounded waits end when their condition holds or throw
/// `WaitExpired` when their bound passes.
@Suite struct TestClockTests {
  /// A lookup that answers only when cancelled; requests with an equal key join it.
  final class Lookup: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
    init(key: Int) {
      super.init(coalescingKey: key)
    }
  }

  @Test func anOperationTimeoutHasCalledAHandlerWithoutCallbackQueueWhenAdvanceReturns()
    async throws
  {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "test-clock.timeout", clock: clock)
    let lookup = Lookup(key: 1)
    lookup.timeout = .seconds(10)
    let results = Recorder<Result<Int, any Error>>()
    manager.enqueue(lookup) { results.record($0) }
    try await clock.waitUntilTimers(1)  // armed when the queue started it

    await clock.advance(by: .seconds(10) - .nanoseconds(1))
    #expect(results.count == 0)
    await clock.advance(by: .nanoseconds(1))
    #expect(results.count == 1, "the handler ran on the advancing thread before it returned")
    #expect(throws: OperationTimeoutError.self) { try results.values.first?.get() }
    #expect(clock.elapsed == .seconds(10))
    try await manager.waitUntilIdle(within: .testTimeout)
  }

  @Test func workThatEndsBeforeItsTimeoutAndStallCheckLeavesNoTimerSet() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "test-clock.taken-out", clock: clock)
    manager.stallThreshold = .seconds(30)
    let lookups = (0..<20).map { key in
      let lookup = Lookup(key: key)
      lookup.timeout = .seconds(3600)
      return lookup
    }
    let calls = lookups.map { lookup in Task { try await manager.perform(lookup) } }
    try await clock.waitUntilTimers(2 * lookups.count)  // each started: its timeout and stall
    for (key, lookup) in lookups.enumerated() { lookup.finish(returning: key) }
    for (key, call) in calls.enumerated() { #expect(try await call.value == key) }
    try await manager.waitUntilIdle(within: .testTimeout)
    #expect(clock.pendingTimers == 0, "finished work left its timeout or stall check set")
  }

  @Test func advancingByNothingOrLessFiresOnlyWhatIsDueNow() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "test-clock.zero", clock: clock)
    let call = Task { try await manager.perform(Lookup(key: 2), timeout: .zero) }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(-5))
    await #expect(throws: OperationTimeoutError.self) { try await call.value }
    #expect(clock.elapsed == .zero)
    #expect(clock.now == TestClock.Instant(offset: .zero))
  }

  @Test func waitUntilCallersEndsOnceTheCallersHaveJoined() async throws {
    let manager = OperationQueueManager(name: "test-clock.callers")
    manager.isSuspended = true
    let calls = (0..<3).map { _ in Task { try await manager.perform(Lookup(key: 7)) } }

    try await manager.waitUntilCallers(3, of: Lookup.self, key: 7)
    #expect(manager.inFlightOperation(Lookup.self, key: 7) != nil)
    await #expect(throws: WaitExpired.self) {
      try await manager.waitUntilCallers(4, of: Lookup.self, key: 7, within: .milliseconds(20))
    }

    for call in calls { call.cancel() }
    for call in calls { await #expect(throws: CancellationError.self) { try await call.value } }
    manager.isSuspended = false
    try await manager.waitUntilIdle(within: .testTimeout)
    await #expect(throws: WaitExpired.self) {
      try await manager.waitUntilCallers(1, of: Lookup.self, key: 7, within: .milliseconds(1))
    }
  }

  @Test func waitUntilIdleWithinThrowsWhileWorkIsLeftAndEndsOnceItIsDone() async throws {
    let manager = OperationQueueManager(name: "test-clock.idle")
    let lookup = Lookup(key: 3)
    manager.enqueue(lookup)

    await #expect(throws: WaitExpired.self) {
      try await manager.waitUntilIdle(within: .milliseconds(20))
    }
    lookup.cancel()
    try await manager.waitUntilIdle(within: .testTimeout)
    #expect(manager.isIdle)
  }

  @Test func waitUntilTimersThrowsWhenTooFewAreSet() async throws {
    let clock = TestClock()
    let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(1))) }
    try await clock.waitUntilTimers(1)
    await #expect(throws: WaitExpired.self) {
      try await clock.waitUntilTimers(2, within: .milliseconds(20))
    }
    await clock.advance(by: .seconds(1))
    try await sleeper.value
    #expect(clock.pendingTimers == 0)
  }

  /// A sleep to an instant the clock has reached returns without an advance, as a real clock's
  /// does; cancelled, it throws.
  @Test func sleepingUntilAReachedInstantReturnsAtOnce() async throws {
    let clock = TestClock()
    await clock.advance(by: .seconds(5))
    let sleeps = Task {
      try await clock.sleep(until: clock.now)
      try await clock.sleep(for: .zero)
      try await clock.sleep(until: TestClock.Instant(offset: .seconds(-1)))
    }
    let returned = await completing { (try? await sleeps.value) != nil }
    #expect(returned == true)
    #expect(clock.pendingTimers == 0)
    let cancelled = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await clock.sleep(for: .zero)
    }
    await #expect(throws: CancellationError.self) { try await cancelled.value }
  }

  /// Advancing never overflows: the clock stops at its latest instant.
  @Test func advancingPastTheLatestInstantStopsThere() async {
    let clock = TestClock()
    for _ in 0..<20 { await clock.advance(by: .seconds(Int64.max)) }
    #expect(clock.elapsed == TestClock.latest)
    await clock.advance(by: .seconds(1))
    #expect(clock.elapsed == TestClock.latest)
  }

  @Test func waitExpiredSaysWhatDidNotHappen() {
    let error = WaitExpired(condition: "3 callers for Lookup[7] on t", bound: .seconds(30))
    #expect(error.description == "3 callers for Lookup[7] on t did not happen within 30.0 seconds")
  }
}
