import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// `forget(_:)` and `forget(key:)`: callers already waiting keep the forgotten work and its
/// outcome; the next request for the key starts new work, whose index entry the forgotten
/// work never removes when it ends.
@Suite struct ForgetKeyTests {
  @Test func theNextRequestStartsNewWorkAndWaitingCallersKeepTheirs() async throws {
    let manager = OperationQueueManager(name: "forget.operation")
    let log = EventLog(manager)
    let stale = ManualOperation(key: 1)
    let waiting = Task { try await manager.perform(stale) }
    #expect(await stale.started.wait())
    manager.forget(ManualOperation(key: 1))
    let key = try #require(stale.coalescingKey)
    #expect(manager.inFlightOperation(for: key) == nil)
    let fresh = ManualOperation(key: 1)
    let next = Task { try await manager.perform(fresh) }
    #expect(await fresh.started.wait())
    #expect(manager.inFlightOperation(for: key) === fresh)
    // The forgotten work ends first: the newer work keeps its entry.
    stale.release(1)
    await expectValue(1, from: waiting, within: .testTimeout)
    #expect(manager.inFlightOperation(for: key) === fresh)
    let joining = Task { try await manager.perform(ManualOperation(key: 1)) }
    #expect(await log.wait { $0.kind == .joined })
    fresh.release(2)
    await expectValue(2, from: next, within: .testTimeout)
    await expectValue(2, from: joining, within: .testTimeout)
    #expect(await becomesIdle(manager, within: .testTimeout))
    #expect(await log.flush(manager))
    #expect(log.kinds(of: stale).map(\.shortName) == ["enqueued", "started", "finished(success)"])
    #expect(
      log.kinds(of: fresh).map(\.shortName)
        == ["enqueued", "started", "joined", "finished(success)"])
  }

  @Test func forgettingAKeyWithNothingInFlightDoesNothing() async throws {
    let manager = OperationQueueManager(name: "forget.nothing")
    let log = EventLog(manager)
    manager.forget(ManualOperation(key: 2))
    manager.forget(key: 2)
    manager.forget(key: "nothing")
    manager.forget(ManualOperation())  // no key at all
    #expect(manager.isIdle)
    #expect(await log.flush(manager))
    #expect(log.events.isEmpty)
  }

  @Test func forgetKeyFindsRunKeyWork() async throws {
    let manager = OperationQueueManager(name: "forget.run")
    let runs = AsyncCounter()
    let firstEntered = Gate()
    let secondEntered = Gate()
    let mayReturn = Gate()
    let first = Task {
      try await manager.run(key: "questions") { () async throws -> Int in
        runs.increment()
        firstEntered.open()
        _ = await mayReturn.wait()
        return 1
      }
    }
    #expect(await firstEntered.wait())
    manager.forget(key: "questions")
    let second = Task {
      try await manager.run(key: "questions") { () async throws -> Int in
        runs.increment()
        secondEntered.open()
        _ = await mayReturn.wait()
        return 2
      }
    }
    #expect(await secondEntered.wait(), "the request after forget(key:) joined the stale run")
    mayReturn.open()
    await expectValue(1, from: first, within: .testTimeout)
    await expectValue(2, from: second, within: .testTimeout)
    #expect(runs.value == 2)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func forgetKeyMatchesTheKeysTypeAsCoalescingDoes() async throws {
    let manager = OperationQueueManager(name: "forget.types")
    let work = ManualOperation(key: 3)
    let key = try #require(work.coalescingKey)
    let caller = Task { try await manager.perform(work) }
    #expect(await work.started.wait())
    manager.forget(key: Int64(3))
    manager.forget(key: "3")
    #expect(manager.inFlightOperation(for: key) === work)
    manager.forget(coalescingKey: key)
    #expect(manager.inFlightOperation(for: key) == nil)
    work.release(3)
    await expectValue(3, from: caller, within: .testTimeout)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func forgottenWorkKeptToItsEndIsJoinedByNobody() async throws {
    let manager = OperationQueueManager(name: "forget.kept")
    let stale = ManualOperation(key: 4)
    let leaving = Task { try await manager.perform(stale, whenAbandoned: .finish) }
    #expect(await stale.started.wait())
    leaving.cancel()
    await expectCancellation(of: leaving, within: .testTimeout)
    manager.forget(key: 4)
    let fresh = ManualOperation(key: 4, ending: .returning(5))
    let next = Task { try await manager.perform(fresh) }
    await expectValue(5, from: next, within: .testTimeout)
    #expect(fresh.mainCallCount == 1)
    #expect(!stale.isCancelled)
    stale.release(4)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }
}
