import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// On swift-corelibs-foundation a dependency keeps an unretained pointer to each of its
/// dependents and follows it when it finishes. An operation that finishes first (its only caller
/// left while it waited for the dependency) and is then released must not be there by then,
/// or the process crashes once the dependency finishes (docs/PLATFORM-NOTES.md).
@Suite struct DependencyLifetimeTests {
  /// An operation of this library, handed over and not kept: its caller's deadline passes
  /// while it waits for a dependency another manager runs.
  @Test func anOperationWhoseCallerLeftIsNotTouchedWhenItsDependencyFinishes() async {
    let (dependency, running) = await Self.runningDependency()
    let waiting = OperationQueueManager(name: "edges.dependency.own")
    let dependent = Locked<WeakReference<Operation>?>(nil)
    let outcome = await Self.outcome {
      try await waiting.perform(
        Self.instant(dependingOn: dependency, recordingIn: dependent), timeout: .milliseconds(1))
    }
    #expect(Self.isCallerTimeout(outcome))
    #expect(await becomesIdle(waiting))
    #expect(await eventually { dependent.withLock { $0?.isFreed } == true })
    dependency.release(1)
    #expect(await becomesIdle(running))
  }

  /// A foreign operation the caller keeps: its adapter, which took over its dependencies, ends
  /// when the caller's deadline passes, and is released.
  @Test func anAdapterWhoseCallerLeftIsNotTouchedWhenItsDependencyFinishes() async {
    let (dependency, running) = await Self.runningDependency()
    let waiting = OperationQueueManager(name: "edges.dependency.adapter")
    var legacy = BlockOperation {}
    legacy.addDependency(dependency)
    #expect(await Self.isCallerTimeout(performing: legacy, on: waiting, timeout: .milliseconds(1)))
    #expect(await becomesIdle(waiting))
    // The adapter holds the foreign operation: once it is released, only this test does.
    #expect(await eventually { isKnownUniquelyReferenced(&legacy) })
    dependency.release(1)
    #expect(await becomesIdle(running))
    #expect(legacy.isCancelled)
  }

  /// A foreign operation handed over and not kept: its adapter cancels it (and starts it, so
  /// it finishes) when its caller's task is cancelled; both are released.
  @Test func aLegacyOperationWhoseCallerLeftIsNotTouchedWhenItsDependencyFinishes() async {
    let (dependency, running) = await Self.runningDependency()
    let waiting = OperationQueueManager(name: "edges.dependency.legacy")
    let dependent = Locked<WeakReference<Operation>?>(nil)
    let task = Task {
      try await waiting.perform(Self.legacy(dependingOn: dependency, recordingIn: dependent))
    }
    #expect(await eventually { waiting.outstandingOperationCount == 1 })
    task.cancel()
    await expectCancellation(of: task)
    #expect(await becomesIdle(waiting))
    #expect(await eventually { dependent.withLock { $0?.isFreed } == true })
    dependency.release(1)
    #expect(await becomesIdle(running))
  }

  // MARK: Support

  /// An operation executing on a manager of its own until the test releases it.
  private static func runningDependency() async -> (ManualOperation, OperationQueueManager) {
    let manager = OperationQueueManager(name: "edges.dependency.running")
    let dependency = ManualOperation(ending: .whenReleased)
    manager.enqueue(dependency)
    #expect(await dependency.started.wait())
    return (dependency, manager)
  }

  /// An operation that returns at once, depending on `dependency`; its weak reference goes to
  /// `slot`, and the caller gets the only strong one.
  private static func instant(
    dependingOn dependency: Operation, recordingIn slot: Locked<WeakReference<Operation>?>
  ) -> ManualOperation {
    let operation = ManualOperation(ending: .returning(2))
    operation.addDependency(dependency)
    slot.withLock { $0 = WeakReference(operation) }
    return operation
  }

  /// A foreign operation depending on `dependency`, recorded as
  /// ``instant(dependingOn:recordingIn:)`` records its operation.
  private static func legacy(
    dependingOn dependency: Operation, recordingIn slot: Locked<WeakReference<Operation>?>
  ) -> BlockOperation {
    let operation = BlockOperation {}
    operation.addDependency(dependency)
    slot.withLock { $0 = WeakReference(operation) }
    return operation
  }

  /// Whether `outcome` is the caller's own deadline passing.
  private static func isCallerTimeout<Value>(_ outcome: Result<Value, any Error>?) -> Bool {
    guard case .failure(let error as OperationTimeoutError)? = outcome else { return false }
    return error.scope == .caller
  }

  /// Whether performing `operation` on `manager` with `timeout` ends with that deadline passing;
  /// nothing here keeps `operation` once it returns.
  private static func isCallerTimeout(
    performing operation: Operation, on manager: OperationQueueManager, timeout: Duration
  ) async -> Bool {
    isCallerTimeout(await outcome { try await manager.perform(operation, timeout: timeout) })
  }

  /// What `body` returned or threw, or nil if it did not return within 30 s.
  private static func outcome<Value: Sendable>(
    _ body: @escaping @Sendable () async throws -> Value
  ) async -> Result<Value, any Error>? {
    await result(of: Task { try await body() })
  }
}
