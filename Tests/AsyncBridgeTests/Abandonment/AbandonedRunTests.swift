import AsyncBridge
import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// Abandonment policies on `run(key:)` and keyed `AsyncOperation`s: the closure keeps running
/// (its task is not cancelled) while the work is kept, and a late call with the key joins it.
@Suite struct AbandonedRunTests {
  @Test func aRunKeptToItsEndFinishesItsClosureAndALateCallJoinsIt() async throws {
    let manager = OperationQueueManager(name: "abandon.run.finish")
    let log = EventLog(manager)
    let entered = Gate()
    let mayReturn = Gate()
    let runs = AsyncCounter()
    let sawCancellation = AsyncCounter()
    @Sendable func body() async throws -> String {
      runs.increment()
      entered.open()
      _ = await mayReturn.wait()
      if Task.isCancelled { sawCancellation.increment() }
      return "page"
    }
    let leaving = Task { try await manager.run(key: "page", whenAbandoned: .finish, body) }
    #expect(await entered.wait())
    leaving.cancel()
    await expectCancellation(of: leaving, within: .testTimeout)
    let late = Task { try await manager.run(key: "page", body) }
    // The late call joins without building an operation.
    #expect(await log.wait { $0.kind == .joined })
    mayReturn.open()
    await expectValue("page", from: late, within: .testTimeout)
    #expect(runs.value == 1)
    #expect(sawCancellation.value == 0, "the closure's task was cancelled")
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func aLingeringRunIsCancelledWhenNobodyCame() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "abandon.run.linger", clock: clock)
    let entered = Gate()
    let stopped = Gate()
    let leaving = Task {
      try await manager.run(key: 1, whenAbandoned: .linger(.seconds(5))) { () async throws -> Int in
        entered.open()
        do {
          try await Task.sleep(for: .seconds(600))
        } catch {
          stopped.open()
          throw error
        }
        return 1
      }
    }
    #expect(await entered.wait())
    leaving.cancel()
    await expectCancellation(of: leaving, within: .testTimeout)
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(4))
    #expect(!stopped.isOpen)
    await clock.advance(by: .seconds(1))
    #expect(await stopped.wait(), "the closure's task was not cancelled at the end of the linger")
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func aKeyedAsyncOperationKeptToItsEndRunsOnce() async throws {
    let manager = OperationQueueManager(name: "abandon.asyncOperation")
    let log = EventLog(manager)
    let entered = Gate()
    let mayReturn = Gate()
    let runs = AsyncCounter()
    @Sendable func make() -> AsyncOperation<Int> {
      AsyncOperation(coalescingKey: "answer") {
        runs.increment()
        entered.open()
        _ = await mayReturn.wait()
        return 42
      }
    }
    let first = make()
    let leaving = Task { try await manager.perform(first, whenAbandoned: .finish) }
    #expect(await entered.wait())
    leaving.cancel()
    await expectCancellation(of: leaving, within: .testTimeout)
    let late = Task { try await manager.perform(make()) }
    #expect(await log.wait { $0.kind == .joined })
    mayReturn.open()
    await expectValue(42, from: late, within: .testTimeout)
    #expect(runs.value == 1)
    #expect(!first.isCancelled)
    #expect(await becomesIdle(manager, within: .testTimeout))
  }

  @Test func aRunWithoutAKeyKeptToItsEndFinishesItsClosure() async throws {
    let manager = OperationQueueManager(name: "abandon.run.unkeyed")
    let entered = Gate()
    let mayReturn = Gate()
    let returned = Gate()
    let leaving = Task {
      try await manager.run(whenAbandoned: .finish) { () async throws -> Int in
        entered.open()
        _ = await mayReturn.wait()
        if !Task.isCancelled { returned.open() }
        return 1
      }
    }
    #expect(await entered.wait())
    leaving.cancel()
    await expectCancellation(of: leaving, within: .testTimeout)
    mayReturn.open()
    #expect(await returned.wait())
    #expect(await becomesIdle(manager, within: .testTimeout))
  }
}
