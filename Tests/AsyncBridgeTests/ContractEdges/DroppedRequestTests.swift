import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// A request that joins identical work in flight is dropped: it never runs. Someone may still
/// hold it, to depend on it or wait for it, so it follows the work it joined and finishes with
/// that work's outcome. Were it never released, whatever depended on it would never run, and a
/// manager holding such a dependent would never become idle.
@Suite struct DroppedRequestTests {
  /// Work for key 5, executing on its manager until the test releases it.
  private static func workInFlight(
    on manager: OperationQueueManager
  ) async -> ManualOperation {
    let working = ManualOperation(key: 5, ending: .whenReleased)
    manager.enqueue(working)
    #expect(await working.started.wait())
    return working
  }

  @Test func aDependentOfARequestThatJoinedWorkRunsOnceThatWorkEnds() async {
    let manager = OperationQueueManager(name: "edges.dropped.dependent")
    let other = OperationQueueManager(name: "edges.dropped.other")
    let working = await Self.workInFlight(on: manager)
    let joiner = ManualOperation(key: 5, ending: .returning(9))
    let dependent = ManualOperation(ending: .returning(2))
    dependent.addDependency(joiner)
    let handled = Recorder<Result<Int, any Error>>()
    #expect(manager.enqueue(joiner) { handled.record($0) } === working)
    let dependentsValue = Task { try await other.perform(dependent) }
    working.release(1)
    #expect(await handled.wait(forCount: 1))
    await expectValue(2, from: dependentsValue)
    #expect(joiner.isFinished)
    #expect(joiner.result.map { try? $0.get() } == 1)
    #expect(joiner.mainCallCount == 0)
    #expect(await becomesIdle(other))
    #expect(await becomesIdle(manager))
  }

  /// The legacy shape: a `BlockOperation` on a plain queue parses what an awaited request
  /// fetched, and someone else waits for that request to finish.
  @Test func aPlainQueuesOperationAndAWaitOnARequestThatJoinedWorkGoOn() async {
    let manager = OperationQueueManager(name: "edges.dropped.plain")
    let log = EventLog(manager)
    let working = await Self.workInFlight(on: manager)
    let joiner = ManualOperation(key: 5, ending: .returning(9))
    let parsed = Gate()
    let parse = BlockOperation { parsed.open() }
    parse.addDependency(joiner)
    let plainQueue = OperationQueue()
    plainQueue.addOperation(parse)
    let caller = Task { try await manager.perform(joiner) }
    #expect(await log.wait { $0.kind == .joined })
    let watcher = Task { try await joiner.value(timeout: .seconds(30)) }
    working.release(1)
    await expectValue(1, from: caller)
    await expectValue(1, from: watcher)
    #expect(await parsed.wait())
    #expect(joiner.mainCallCount == 0)
  }

  /// A foreign operation that joins other work under a `coalescingKey` never runs either, and
  /// is left as it is (its `cancel()` may trap): `enqueue` returns the operation doing the work,
  /// and what depends on that one runs once the work ends.
  @Test func aLegacyRequestThatJoinedWorkIsLeftAsItIsAndNamesTheWork() async {
    let manager = OperationQueueManager(name: "edges.dropped.legacy")
    let events = EventLog(manager)
    let ran = Recorder<Int>()
    let release = Gate()
    let working = BlockOperation {
      _ = release.block()
      ran.record(1)
    }
    let first = Task { try await manager.perform(working, coalescingKey: "legacy") }
    #expect(await events.wait { $0.kind == .started })
    let joiner = BlockOperation { ran.record(2) }
    let handled = Gate()
    let doing = manager.enqueue(joiner, coalescingKey: "legacy") { _ in handled.open() }
    #expect(doing === working)
    let parsed = Gate()
    let parse = BlockOperation { parsed.open() }
    parse.addDependency(doing)
    OperationQueue().addOperation(parse)
    release.open()
    await expectSuccess(of: first)
    #expect(await handled.wait())
    #expect(await parsed.wait())
    #expect(!joiner.isFinished && !joiner.isCancelled && !joiner.isExecuting)
    #expect(ran.values == [1])
  }

  /// Following is not wanting: the work is still cancelled when its last caller leaves, and
  /// the dropped request finishes cancelled, so its dependents run.
  @Test func aDroppedRequestNeverKeepsTheWorkItJoinedFromBeingCancelled() async {
    let manager = OperationQueueManager(name: "edges.dropped.cancel")
    let log = EventLog(manager)
    let working = ManualOperation(key: 5, ending: .whenReleased)
    let first = Task { try await manager.perform(working) }
    #expect(await working.started.wait())
    let joiner = ManualOperation(key: 5, ending: .returning(9))
    let dependent = BlockOperation {}
    dependent.addDependency(joiner)
    let second = Task { try await manager.perform(joiner) }
    #expect(await log.wait { $0.kind == .joined })
    first.cancel()
    second.cancel()
    await expectCancellation(of: first)
    await expectCancellation(of: second)
    #expect(await eventually { working.isCancelled && joiner.isFinished })
    #expect(joiner.isCancelled)
    OperationQueue().addOperation(dependent)
    #expect(await eventually { dependent.isFinished })
    #expect(await becomesIdle(manager))
  }

  /// A request handed over and held by nobody else is freed as soon as it has joined: the
  /// work's 100,000 callers do not keep 100,000 dropped requests. (On Apple platforms an
  /// `Operation` is an Objective-C object, whose uniqueness Swift cannot tell: there it follows
  /// the work, and is released when the work ends.)
  @Test func aRequestNobodyElseHoldsIsFreedOnceItHasJoined() async {
    let manager = OperationQueueManager(name: "edges.dropped.freed")
    let log = EventLog(manager)
    let working = await Self.workInFlight(on: manager)
    let dropped = Locked<WeakReference<Operation>?>(nil)
    let caller = Task { try await manager.perform(Self.joiner(recordingIn: dropped)) }
    #expect(await log.wait { $0.kind == .joined })
    #if !canImport(Darwin)
      #expect(await eventually { dropped.withLock { $0?.isFreed } == true })
    #endif
    working.release(1)
    await expectValue(1, from: caller)
    #expect(await eventually { dropped.withLock { $0?.isFreed } == true })
  }

  /// A request for key 5, whose weak reference goes to `slot`; the caller gets the only strong
  /// one.
  private static func joiner(
    recordingIn slot: Locked<WeakReference<Operation>?>
  ) -> ManualOperation {
    let operation = ManualOperation(key: 5, ending: .returning(9))
    slot.withLock { $0 = WeakReference(operation) }
    return operation
  }
}
