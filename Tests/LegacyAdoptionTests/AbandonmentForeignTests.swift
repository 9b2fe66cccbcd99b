import AsyncBridge
import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// Abandonment policies and forgotten keys for foreign operations performed with a
/// `coalescingKey:`: the same rules as for the bridge's own operations, through the adapter.
@Suite struct AbandonmentForeignTests {
  static let key = "questions/stackoverflow/1"

  @Test func aLateCallerWithinTheLingerJoinsTheForeignWork() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "abandon.foreign.linger", clock: clock)
    let log = EventLog(manager)
    let service = ManualQuestionService()
    let first = FetchTitlesOperation(site: "s", service: service)
    let leaving = Task {
      try await manager.perform(first, coalescingKey: Self.key, whenAbandoned: .linger(.seconds(5)))
    }
    #expect(await service.firstRequest.wait())
    leaving.cancel()
    await expectCancellation(of: leaving, within: .testTimeout)
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(3))
    let second = FetchTitlesOperation(site: "s", service: service)
    let late = Task { try await manager.perform(second, coalescingKey: Self.key) }
    #expect(await log.wait { $0.kind == .joined })
    await clock.advance(by: .seconds(5))
    #expect(!first.isCancelled, "the linger cancelled foreign work a caller had joined")
    service.answer(.success(["kept"]))
    #expect(await value(of: late) == ["kept"])
    #expect(service.requestCount == 1)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func lingeringForeignWorkIsCancelledWhenNobodyCame() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "abandon.foreign.expire", clock: clock)
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "s", service: service)
    let leaving = Task {
      try await manager.perform(fetch, coalescingKey: Self.key, whenAbandoned: .linger(.seconds(5)))
    }
    #expect(await service.firstRequest.wait())
    leaving.cancel()
    await expectCancellation(of: leaving, within: .testTimeout)
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(5))
    #expect(await eventually { fetch.isCancelled })
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func foreignWorkKeptToItsEndCompletesWithNobodyWaiting() async throws {
    let manager = OperationQueueManager(name: "abandon.foreign.finish")
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "s", service: service)
    let leaving = Task {
      try await manager.perform(fetch, coalescingKey: Self.key, whenAbandoned: .finish)
    }
    #expect(await service.firstRequest.wait())
    leaving.cancel()
    await expectCancellation(of: leaving, within: .testTimeout)
    #expect(!fetch.isCancelled)
    service.answer(.success(["done"]))
    #expect(await becomesIdle(manager, within: .testTimeout))
    #expect(fetch.isFinished)
    #expect(!fetch.isCancelled)
    #expect((try? fetch.result?.get()) == ["done"])
  }

  @Test func forgettingAForeignKeyStartsNewWorkForTheNextRequest() async throws {
    let manager = OperationQueueManager(name: "forget.foreign")
    let log = EventLog(manager)
    let service = ManualQuestionService()
    let stale = FetchTitlesOperation(site: "s", service: service)
    let waiting = Task { try await manager.perform(stale, coalescingKey: Self.key) }
    #expect(await service.firstRequest.wait())
    manager.forget(key: Self.key)
    let fresh = FetchTitlesOperation(site: "s", service: service)
    let next = Task { try await manager.perform(fresh, coalescingKey: Self.key) }
    #expect(await eventually { service.requestCount == 2 })
    service.answer(.success(["both"]))
    #expect(await value(of: waiting) == ["both"])
    #expect(await value(of: next) == ["both"])
    #expect(await becomesIdle(manager, within: .testTimeout))
    #expect(await log.flush(manager))
    #expect(log.count(of: .joined) == 0)
    #expect(log.count(of: .enqueued) == 2)
  }
}
