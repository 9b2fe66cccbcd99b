import AsyncBridge
import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// What happens to shared work when its last caller leaves (`whenAbandoned:`): cancelled (the
/// default), run to its end, or kept on the manager's clock for a late request to join. Each
/// test drives time with a manual clock and the work with gates: nothing waits for real time.
@Suite struct AbandonmentPolicyTests {
  static let linger = Duration.seconds(5)

  // MARK: .cancel

  @Test func cancelIsTheDefaultAndCancelsTheWorkWhenTheLastCallerLeaves() async throws {
    let manager = OperationQueueManager(name: "abandon.cancel")
    let log = EventLog(manager)
    let work = ManualOperation(key: 1)
    let first = Task { try await manager.perform(work) }
    let second = Task { try await manager.perform(ManualOperation(key: 1), whenAbandoned: .cancel) }
    #expect(await work.started.wait())
    #expect(await log.wait { $0.kind == .joined })
    first.cancel()
    await expectCancellation(of: first, within: .testTimeout)
    #expect(!work.isCancelled, "one of two callers leaving cancelled the work")
    second.cancel()
    await expectCancellation(of: second, within: .testTimeout)
    #expect(work.isCancelled)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  // MARK: .finish

  @Test func finishRunsExecutingWorkToItsEndWithNobodyWaiting() async throws {
    let manager = OperationQueueManager(name: "abandon.finish")
    let log = EventLog(manager)
    let work = ManualOperation(key: 2)
    let caller = Task { try await manager.perform(work, whenAbandoned: .finish) }
    #expect(await work.started.wait())
    caller.cancel()
    await expectCancellation(of: caller, within: .testTimeout)
    #expect(!work.isCancelled)
    #expect(work.cancelHookCallCount == 0)
    work.release(42)
    #expect(await becomesIdle(manager, within: .testTimeout))
    #expect(work.result.flatMap { try? $0.get() } == 42)
    #expect(await log.wait { $0.kind == .finished(.success) })
    let kinds = log.kinds(of: work).map(\.shortName)
    #expect(kinds == ["enqueued", "started", "finished(success)"])
    // Nobody was left to hand the value to.
    #expect(log.events(.finished(.success), of: work).first?.callerCount == 0)
  }

  @Test func aValueCallersPolicyCountsAsAnyCallers() async throws {
    let manager = OperationQueueManager(name: "abandon.value")
    let kept = ManualOperation(key: 40)
    let cancelled = ManualOperation(key: 41)
    let callers = [
      Task { try await manager.perform(kept) },
      Task { try await kept.value(whenAbandoned: .finish) },
      Task { try await manager.perform(cancelled) },
      Task { try await cancelled.value() },
    ]
    try await manager.waitUntilCallers(2, of: ManualOperation.self, key: 40)
    try await manager.waitUntilCallers(2, of: ManualOperation.self, key: 41)
    for caller in callers {
      caller.cancel()
      await expectCancellation(of: caller, within: .testTimeout)
    }
    #expect(!kept.isCancelled, "the work was cancelled although a value caller asked to finish it")
    #expect(cancelled.isCancelled)
    kept.release(7)
    #expect(await becomesIdle(manager, within: .testTimeout))
    #expect(kept.result.flatMap { try? $0.get() } == 7)
  }

  @Test func aCallerObservingProgressKeepsWorkItAskedToFinish() async throws {
    let manager = OperationQueueManager(name: "abandon.finish.progress")
    let work = ManualOperation(key: 18)
    let caller = Task {
      try await manager.perform(work, whenAbandoned: .finish, onProgress: { _ in })
    }
    #expect(await work.started.wait())
    caller.cancel()
    await expectCancellation(of: caller, within: .testTimeout)
    #expect(!work.isCancelled)
    work.release(18)
    #expect(await becomesIdle(manager, within: .testTimeout))
    #expect(work.result.flatMap { try? $0.get() } == 18)
  }

  @Test func finishRunsPendingWorkOnceTheQueueStartsIt() async throws {
    let manager = OperationQueueManager(name: "abandon.finish.pending")
    manager.isSuspended = true
    let work = ManualOperation(key: 3, ending: .returning(3))
    let caller = Task { try await manager.perform(work, whenAbandoned: .finish) }
    #expect(await eventually { work.isClaimedOrStarted })
    caller.cancel()
    await expectCancellation(of: caller, within: .testTimeout)
    #expect(!work.isCancelled)
    manager.isSuspended = false
    #expect(await becomesIdle(manager, within: .testTimeout))
    #expect(work.mainCallCount == 1)
    #expect(work.result.flatMap { try? $0.get() } == 3)
  }

  @Test func aRequestJoinsWorkThatRunsOnWithNobodyWaiting() async throws {
    let manager = OperationQueueManager(name: "abandon.finish.join")
    let log = EventLog(manager)
    let work = ManualOperation(key: 4)
    let leaving = Task { try await manager.perform(work, whenAbandoned: .finish) }
    #expect(await work.started.wait())
    leaving.cancel()
    await expectCancellation(of: leaving, within: .testTimeout)
    let late = ManualOperation(key: 4)
    let arriving = Task { try await manager.perform(late) }
    #expect(await log.wait { $0.kind == .joined })
    work.release(4)
    await expectValue(4, from: arriving, within: .testTimeout)
    #expect(late.mainCallCount == 0)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func theOperationsOwnCancelStillCancelsWorkKeptToItsEnd() async throws {
    let manager = OperationQueueManager(name: "abandon.finish.cancel")
    let work = ManualOperation(key: 5)
    let caller = Task { try await manager.perform(work, whenAbandoned: .finish) }
    #expect(await work.started.wait())
    caller.cancel()
    await expectCancellation(of: caller, within: .testTimeout)
    work.cancel()
    #expect(work.isCancelled)
    #expect(await work.cancelHookCalled.wait())
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func cancelAllStillCancelsWorkKeptToItsEnd() async throws {
    let manager = OperationQueueManager(name: "abandon.finish.cancelAll")
    let invariants = EventInvariants(manager)
    let work = ManualOperation(key: 6)
    invariants.track(work)
    let caller = Task { try await manager.perform(work, whenAbandoned: .finish) }
    #expect(await work.started.wait())
    caller.cancel()
    await expectCancellation(of: caller, within: .testTimeout)
    #expect(await invariants.log.wait { $0.kind == .started })
    invariants.cancelAll(manager)
    #expect(work.isCancelled)
    await invariants.expectValid(manager)
  }

  @Test func theOperationsOwnTimeoutStillEndsWorkKeptToItsEnd() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "abandon.finish.timeout", clock: clock)
    let work = ManualOperation(key: 7)
    work.timeout = .seconds(3)
    let caller = Task { try await manager.perform(work, whenAbandoned: .finish) }
    #expect(await work.started.wait())
    caller.cancel()
    await expectCancellation(of: caller, within: .testTimeout)
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(3))
    #expect(work.result.map { ($0.failure as? OperationTimeoutError)?.scope } == .operation)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func aDeadlineFirstThenThePolicy() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "abandon.finish.deadline", clock: clock)
    let work = ManualOperation(key: 8)
    let caller = Task {
      try await manager.perform(work, timeout: .seconds(2), whenAbandoned: .finish)
    }
    #expect(await work.started.wait())
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(2))
    let outcome = try #require(await result(of: caller, within: .testTimeout))
    #expect((outcome.failure as? OperationTimeoutError)?.scope == .caller)
    #expect(!work.isCancelled, "the caller's deadline cancelled work it asked to finish")
    work.release(8)
    #expect(await becomesIdle(manager, within: .testTimeout))
    #expect(work.result.flatMap { try? $0.get() } == 8)
  }

  @Test func anIdleWaitWaitsForWorkKeptToItsEnd() async throws {
    let manager = OperationQueueManager(name: "abandon.finish.idle")
    let work = ManualOperation(key: 9)
    let caller = Task { try await manager.perform(work, whenAbandoned: .finish) }
    #expect(await work.started.wait())
    caller.cancel()
    await expectCancellation(of: caller, within: .testTimeout)
    #expect(!manager.isIdle)
    let idle = Task { () async throws -> Bool in
      try await manager.waitUntilIdle()
      return work.isFinished
    }
    work.release(9)
    #expect(await value(of: idle, within: .testTimeout) == true)
  }

  // MARK: .linger

  @Test func lingeringWorkIsCancelledWhenNobodyCameOnTheManagersClock() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "abandon.linger.expire", clock: clock)
    let invariants = EventInvariants(manager)
    let work = ManualOperation(key: 10)
    invariants.track(work)
    let caller = Task { try await manager.perform(work, whenAbandoned: .linger(Self.linger)) }
    #expect(await work.started.wait())
    caller.cancel()
    await expectCancellation(of: caller, within: .testTimeout)
    try await clock.waitUntilTimers(1)
    await clock.advance(by: Self.linger - .milliseconds(1))
    #expect(!work.isCancelled, "cancelled before its linger ran out")
    await clock.advance(by: .milliseconds(1))
    #expect(work.isCancelled)
    #expect(await work.cancelHookCalled.wait(), "the hook runs on a queue of its own, once")
    #expect(work.cancelHookCallCount == 1)
    #expect(manager.inFlightOperation(for: try #require(work.coalescingKey)) == nil)
    await invariants.expectValid(manager)
    #expect(invariants.log.kinds(of: work).last == .finished(.cancelled))
  }

  @Test func aRequestWithinTheLingerJoinsAndDisarmsIt() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "abandon.linger.join", clock: clock)
    let log = EventLog(manager)
    let work = ManualOperation(key: 11)
    let leaving = Task {
      try await manager.perform(work, whenAbandoned: .linger(Self.linger))
    }
    #expect(await work.started.wait())
    leaving.cancel()
    await expectCancellation(of: leaving, within: .testTimeout)
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(4))
    let late = ManualOperation(key: 11)
    let arriving = Task { try await manager.perform(late) }
    #expect(await log.wait { $0.kind == .joined })
    #expect(clock.pendingTimers == 0, "the linger's timer is still armed after the join")
    await clock.advance(by: .seconds(2))
    #expect(!work.isCancelled, "the linger cancelled work a caller had joined")
    work.release(11)
    await expectValue(11, from: arriving, within: .testTimeout)
    #expect(late.mainCallCount == 0)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  /// Work that settles while it lingers leaves no timer behind: a long linger on work that ends
  /// soon after does not keep an entry in the manager's scheduler until it would have run out.
  @Test func workThatSettlesWhileItLingersTakesItsTimerOut() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "abandon.linger.settled", clock: clock)
    let work = ManualOperation(key: 12)
    let leaving = Task {
      try await manager.perform(work, whenAbandoned: .linger(.seconds(3_600)))
    }
    #expect(await work.started.wait())
    leaving.cancel()
    await expectCancellation(of: leaving, within: .testTimeout)
    try await clock.waitUntilTimers(1)
    work.release(12)
    #expect(await becomesIdle(manager, within: .testTimeout))
    #expect(!work.isCancelled, "the linger cancelled work that ended within it")
    #expect(clock.pendingTimers == 0, "the linger's timer outlived the work it was kept for")
  }

  @Test func theLingerStartsAgainWhenALateCallerLeavesToo() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "abandon.linger.again", clock: clock)
    let log = EventLog(manager)
    let work = ManualOperation(key: 12)
    let first = Task { try await manager.perform(work, whenAbandoned: .linger(Self.linger)) }
    #expect(await work.started.wait())
    first.cancel()
    await expectCancellation(of: first, within: .testTimeout)
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(3))
    // A late caller with the default policy: the work's policy is the strongest its callers
    // asked for, so it lingers again once this one leaves.
    let second = Task { try await manager.perform(ManualOperation(key: 12)) }
    #expect(await log.wait { $0.kind == .joined })
    #expect(clock.pendingTimers == 0, "the first linger's timer is still armed after the join")
    second.cancel()
    await expectCancellation(of: second, within: .testTimeout)
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(4))
    #expect(!work.isCancelled, "the first linger's timer cancelled the second linger")
    await clock.advance(by: .seconds(1))
    #expect(work.isCancelled)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func lingeringPendingWorkIsCancelledUnrunAndReleasedWhenItsQueueStartsIt() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "abandon.linger.pending", clock: clock)
    manager.isSuspended = true
    let work = ManualOperation(key: 13)
    let caller = Task { try await manager.perform(work, whenAbandoned: .linger(Self.linger)) }
    #expect(await eventually { work.isClaimedOrStarted })
    caller.cancel()
    await expectCancellation(of: caller, within: .testTimeout)
    try await clock.waitUntilTimers(1)
    await clock.advance(by: Self.linger)
    #expect(work.isCancelled)
    manager.isSuspended = false
    #expect(await becomesIdle(manager, within: .testTimeout))
    #expect(work.mainCallCount == 0)
  }

  // MARK: Mixed policies

  @Test func finishOutlastsACancelCallerThatLeavesLast() async throws {
    let manager = OperationQueueManager(name: "abandon.mixed.finish")
    let log = EventLog(manager)
    let work = ManualOperation(key: 14)
    let keeping = Task { try await manager.perform(work, whenAbandoned: .finish) }
    #expect(await work.started.wait())
    let plain = Task { try await manager.perform(ManualOperation(key: 14)) }
    #expect(await log.wait { $0.kind == .joined })
    keeping.cancel()
    await expectCancellation(of: keeping, within: .testTimeout)
    plain.cancel()
    await expectCancellation(of: plain, within: .testTimeout)
    #expect(!work.isCancelled, "a caller asked to finish the work, and it was cancelled")
    work.release(14)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func theLongerOfTwoLingersCounts() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "abandon.mixed.linger", clock: clock)
    let log = EventLog(manager)
    let work = ManualOperation(key: 15)
    let long = Task { try await manager.perform(work, whenAbandoned: .linger(.seconds(8))) }
    #expect(await work.started.wait())
    let short = Task {
      try await manager.perform(ManualOperation(key: 15), whenAbandoned: .linger(.seconds(2)))
    }
    #expect(await log.wait { $0.kind == .joined })
    long.cancel()
    await expectCancellation(of: long, within: .testTimeout)
    short.cancel()
    await expectCancellation(of: short, within: .testTimeout)
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(7))
    #expect(!work.isCancelled)
    await clock.advance(by: .seconds(1))
    #expect(work.isCancelled)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func aCallerThatNeverJoinedAddsNoPolicy() async throws {
    let manager = OperationQueueManager(name: "abandon.mixed.never")
    let work = ManualOperation(key: 16)
    let caller = Task { try await manager.perform(work) }
    #expect(await work.started.wait())
    // Already cancelled when it calls in: it registers nothing, so its policy counts for
    // nothing.
    let cancelledFirst = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await manager.perform(ManualOperation(key: 16), whenAbandoned: .finish)
    }
    await expectCancellation(of: cancelledFirst, within: .testTimeout)
    caller.cancel()
    await expectCancellation(of: caller, within: .testTimeout)
    #expect(work.isCancelled)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func aCompletionHandlerNeverLeavesWhateverTheAwaitingCallersPolicy() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "abandon.mixed.handler", clock: clock)
    let log = EventLog(manager)
    let work = ManualOperation(key: 17)
    let handler = Recorder<Result<Int, any Error>>()
    manager.enqueue(work) { handler.record($0) }
    let caller = Task {
      try await manager.perform(ManualOperation(key: 17), whenAbandoned: .linger(.seconds(1)))
    }
    #expect(await log.wait { $0.kind == .joined })
    caller.cancel()
    await expectCancellation(of: caller, within: .testTimeout)
    await clock.advance(by: .seconds(10))
    #expect(!work.isCancelled)
    #expect(clock.pendingTimers == 0, "a linger was armed while a completion handler waited")
    work.release(17)
    #expect(await handler.wait(forCount: 1))
    #expect(try handler.values.first?.get() == 17)
  }
}
