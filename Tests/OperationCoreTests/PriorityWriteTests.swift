import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// The queue priority of shared work is decided under locks and written after them: on Apple
/// platforms the setter sends key-value notifications, whose observers run inside it and may
/// change the same work's priority. corelibs sends none, so an operation whose setter runs a
/// hook first stands in for such an observer here; each hook runs on the writing thread, where
/// a lock held across the write would be re-entered.
@Suite struct PriorityWriteTests {
  @Test func aJoinerRaisingWorkWhileItsInitialPriorityIsWrittenKeepsTheRaise() async {
    let manager = OperationQueueManager(name: "priority.initial", maxConcurrentOperationCount: 1)
    manager.isSuspended = true
    let settled = AsyncCounter()
    let count: @Sendable (Result<Int, any Error>) -> Void = { _ in settled.increment() }
    let work = HookedPriorityOperation(key: 1)
    // The claim writes `.low`; before it lands, an urgent request joins the work.
    work.beforeFirstWrite { _ in
      manager.enqueue(HookedPriorityOperation(key: 1), priority: .veryHigh, completion: count)
    }

    let admitted = await completing(within: .seconds(10)) {
      await onOwnThread { manager.enqueue(work, priority: .low, completion: count) }
    }

    #expect(admitted != nil, "the claim's priority write waited for its own observer")
    #expect(work.queuePriority == .veryHigh, "the initial priority was written over the raise")
    manager.cancelAllOperations()
    manager.isSuspended = false
    #expect(await settled.wait(untilAtLeast: 2))
    #expect(await becomesIdle(manager))
  }

  @Test func anObserverRaisingTheSameWorkWhileARaiseIsWrittenLeavesTheNewest() async {
    let manager = OperationQueueManager(name: "priority.reentrant", maxConcurrentOperationCount: 1)
    manager.isSuspended = true
    let settled = AsyncCounter()
    let count: @Sendable (Result<Int, any Error>) -> Void = { _ in settled.increment() }
    let work = HookedPriorityOperation(key: 2)
    manager.enqueue(work, priority: .low, completion: count)
    // A request raises the work to `.high`; before that lands, another raises it further.
    work.beforeFirstWrite { _ in
      manager.enqueue(HookedPriorityOperation(key: 2), priority: .veryHigh, completion: count)
    }

    let raised = await completing(within: .seconds(10)) {
      await onOwnThread {
        manager.enqueue(HookedPriorityOperation(key: 2), priority: .high, completion: count)
      }
    }

    #expect(raised != nil, "a raise waited for its own observer")
    #expect(work.queuePriority == .veryHigh, "an older raise was written over the newest")
    manager.cancelAllOperations()
    manager.isSuspended = false
    #expect(await settled.wait(untilAtLeast: 3))
    #expect(await becomesIdle(manager))
  }
}

/// A test operation whose queue-priority setter runs a hook, once, before it writes: where an
/// Apple platform's key-value observer of the operation would run.
private final class HookedPriorityOperation: TestOperation<any Error>, @unchecked Sendable {
  private let hook = Locked<(@Sendable (Operation.QueuePriority) -> Void)?>(nil)

  /// Runs `body` with the priority about to be written, at the next write only.
  func beforeFirstWrite(_ body: @escaping @Sendable (Operation.QueuePriority) -> Void) {
    hook.withLock { $0 = body }
  }

  override var queuePriority: Operation.QueuePriority {
    get { super.queuePriority }
    set {
      let body = hook.withLock { hook in
        defer { hook = nil }
        return hook
      }
      body?(newValue)
      super.queuePriority = newValue
    }
  }
}
