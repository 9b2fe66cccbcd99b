import AsyncBridge
import FixtureServer
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

@testable import StackExchange

@Suite struct BackoffGateTests {
  @Test func absentOrNonPositiveBackoffChangesNothing() throws {
    let gate = BackoffGate(clock: OperationQueueManager(name: "gate").clock)

    gate.record(backoff: nil, site: "stackoverflow")
    gate.record(backoff: 0, site: "stackoverflow")
    gate.record(backoff: -5, site: "stackoverflow")

    try gate.checkCall(site: "stackoverflow")
  }

  @Test func aShorterLaterBackoffDoesNotShortenALongerOne() {
    let clock = TestClock()
    let gate = BackoffGate(clock: OperationQueueManager(name: "gate", clock: clock).clock)

    gate.record(backoff: 60, site: "stackoverflow")
    gate.record(backoff: 5, site: "STACKOVERFLOW")

    #expect(throws: BackoffError(site: "stackoverflow", retryAfter: .seconds(60))) {
      try gate.checkCall(site: "stackoverflow")
    }
  }

  @Test func descriptionRoundsTheRemainingTimeUp() {
    let error = BackoffError(site: "superuser", retryAfter: .milliseconds(6_001))

    #expect(
      error.description
        == "the API asked to back off: no /questions call on superuser for another 7 s")
  }

  /// A backoff past what a timer can take (a server's `Int.max` seconds, waited out under a
  /// `maxBackoffWait` of `.seconds(Int64.max)`) is waited a century at a time, the gate waiting
  /// again while it lasts: Dispatch's deadlines trap past `Int64.max` seconds.
  @Test func aWaitLastsACenturyAtMost() {
    let scheduler = Scheduler.on(TestClock())
    let now = scheduler.now
    let endless = Duration.seconds(Int64.max) + .seconds(Int64.max)
    let longest = scheduler.schedule(after: endless) {}
    #expect(scheduler.earliestDue == now + .century)
    scheduler.cancel(longest)
    let short = scheduler.schedule(after: .seconds(5)) {}
    #expect(scheduler.earliestDue == now + .seconds(5))
    scheduler.cancel(short)
    // The real clock's timer is armed for an endless instant without trapping.
    let real = Scheduler.continuous.schedule(at: Scheduler.continuous.now + endless) {}
    Scheduler.continuous.cancel(real)
  }

  @Test func descriptionOfTheLongestBackoffDoesNotTrap() {
    let longest = BackoffError(site: "superuser", retryAfter: .seconds(Int.max))
    let justUnder = BackoffError(
      site: "superuser", retryAfter: .seconds(Int.max) - .milliseconds(1))

    #expect(longest.description.hasSuffix("for another 9223372036854775807 s"))
    #expect(justUnder.description.hasSuffix("for another 9223372036854775807 s"))
  }

  /// The public initializer takes any duration: past `Int64.max` seconds (where
  /// `Duration.components` traps) the description says `Int64.max` seconds, and a backoff
  /// already over says 0.
  @Test func descriptionOfAnyDurationDoesNotTrap() {
    for beyond in [Duration.seconds(Int64.max) + .seconds(1), .seconds(Int64.max) * 4] {
      let error = BackoffError(site: "superuser", retryAfter: beyond)
      #expect(error.description.hasSuffix("for another 9223372036854775807 s"))
    }
    let over = BackoffError(site: "superuser", retryAfter: .seconds(-3))
    #expect(over.description.hasSuffix("for another 0 s"))
  }
}
