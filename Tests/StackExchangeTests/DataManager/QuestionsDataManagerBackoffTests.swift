import AsyncBridge
import FixtureServer
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

@testable import StackExchange

@Suite struct QuestionsDataManagerBackoffTests {
  @Test func laterCallsDuringABackoffFailFastWithoutARequest() async throws {
    let clock = TestClock()
    let harness = try DataManagerHarness(fixture: StackExchangeFixture(backoff: 30), clock: clock)

    let first = success(of: await asyncResult(harness.dataManager, stackOverflow))
    await clock.advance(by: .seconds(10))
    let asyncError = failure(of: await asyncResult(harness.dataManager, stackOverflow))
    let handlerError = failure(
      of: await handlerResult(harness.dataManager, QuestionsQuery(site: "StackOverflow")))

    #expect(first?.backoff == 30)
    let expected = BackoffError(site: "stackoverflow", retryAfter: .seconds(20))
    #expect(asyncError as? BackoffError == expected)
    #expect(
      handlerError as? BackoffError == BackoffError(site: "StackOverflow", retryAfter: .seconds(20))
    )
    #expect(harness.questionRequests == 1)
  }

  @Test func backoffAppliesToItsSiteOnly() async throws {
    let fixture = StackExchangeFixture(backoff: 30)
    let harness = try DataManagerHarness(fixture: fixture)

    _ = success(of: await handlerResult(harness.dataManager, stackOverflow))
    fixture.backoff = nil
    let otherSite = success(
      of: await asyncResult(harness.dataManager, QuestionsQuery(site: "superuser")))

    #expect(otherSite?.items.isEmpty == false)
    #expect(harness.questionRequests == 2)
  }

  @Test func callsGoThroughAgainOnceTheBackoffHasExpired() async throws {
    let clock = TestClock()
    let fixture = StackExchangeFixture(backoff: 2)
    let harness = try DataManagerHarness(fixture: fixture, clock: clock)

    _ = success(of: await asyncResult(harness.dataManager, stackOverflow))
    fixture.backoff = nil
    await clock.advance(by: .milliseconds(1_999))
    let tooEarly = failure(of: await asyncResult(harness.dataManager, stackOverflow))
    await clock.advance(by: .milliseconds(1))
    let onTime = success(of: await asyncResult(harness.dataManager, stackOverflow))

    #expect(
      tooEarly as? BackoffError == BackoffError(site: "stackoverflow", retryAfter: .milliseconds(1))
    )
    #expect(onTime?.backoff == nil)
    #expect(harness.questionRequests == 2)
  }

  @Test func callersSharingTheRequestThatCarriedTheBackoffAllGetThePage() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture(backoff: 30))
    let events = harness.manager.makeEvents()
    harness.manager.isSuspended = true

    let first = Task { await asyncResult(harness.dataManager, stackOverflow) }
    let second = Task { await handlerResult(harness.dataManager, stackOverflow) }
    let linedUp = await registrations(2, on: events)
    harness.manager.isSuspended = false

    #expect(linedUp)
    #expect(success(of: await first.value)?.backoff == 30)
    #expect(success(of: await second.value)?.backoff == 30)
    #expect(failure(of: await asyncResult(harness.dataManager, stackOverflow)) is BackoffError)
    #expect(harness.questionRequests == 1)
  }
}

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

/// A gate's wait ending races its task's cancellation: the task is resumed exactly once (its
/// continuation is checked), and the request is admitted exactly when the task got it.
@Suite struct BackoffGateWaitRaceTests {
  @Test func cancellationRacingTheEndOfTheWaitResumesOnceAndAdmitsOnlyWhatItReturns()
    async throws
  {
    let rounds = 200
    let admitted = AsyncCounter()
    var returned = 0
    for _ in 0..<rounds {
      let clock = TestClock()
      let gate = BackoffGate(clock: OperationQueueManager(name: "gate", clock: clock).clock)
      gate.record(backoff: 1, site: "stackoverflow")
      let wait = Task {
        try await gate.whenOpen(site: "stackoverflow", longest: .seconds(60)) {
          admitted.increment()
        }
      }
      try await clock.waitUntilTimers(1)
      async let advanced: Void = clock.advance(by: .seconds(1))
      wait.cancel()
      await advanced
      switch await wait.result {
      case .success: returned += 1
      case .failure(let error): #expect(error is CancellationError, "got \(error)")
      }
      #expect(clock.pendingTimers == 0)
    }
    #expect(admitted.value == returned)
  }
}
