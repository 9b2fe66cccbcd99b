import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// The manager decides its queue's suspension under its lock and writes it to the queue after:
/// on Apple platforms the queue's `isSuspended` setter sends key-value notifications, whose
/// observers run inside it. corelibs sends none, so a queue whose setter runs a hook first
/// stands in for such an observer here.
@Suite struct SuspensionWriteTests {
  @Test func aSuspensionDecidedWhileAnOlderOneIsBeingWrittenIsTheOneThatStays() async {
    let queue = HookedQueue()
    let manager = OperationQueueManager(queue: queue)
    let resumedMeanwhile = Locked(false)
    // While the suspension is being written, another thread resumes the queue and returns.
    queue.beforeFirstWrite { _ in
      let resumed = Gate()
      Thread.detachNewThread {
        manager.isSuspended = false
        resumed.open()
      }
      let inTime = resumed.block(timeout: .seconds(5))
      resumedMeanwhile.withLock { $0 = inTime }
    }

    await onOwnThread { manager.isSuspended = true }

    #expect(resumedMeanwhile.withLock { $0 }, "the resume waited for the older suspension's write")
    #expect(!queue.isSuspended, "the older suspension was written last")
    #expect(!manager.isSuspended)
  }

  @Test func anObserverOfTheQueuesSuspensionMayReadItAndCancelAllThroughTheManager() async {
    let queue = HookedQueue()
    let manager = OperationQueueManager(queue: queue)
    let pending = ManualOperation(ending: .returning(1))
    let results = ResultRecorder()
    manager.isSuspended = true
    manager.enqueue(pending) { results.record($0) }
    let seen = Locked<Bool?>(nil)
    // On the writing thread, inside the write, as a key-value observer would run.
    queue.beforeFirstWrite { _ in
      seen.withLock { $0 = manager.isSuspended }
      manager.cancelAllOperations()
    }

    let returned = await completing(within: .seconds(10)) {
      await onOwnThread { () -> Bool in
        manager.isSuspended = false
        return true
      }
    }

    #expect(returned != nil, "the write waited for its own observer")
    #expect(seen.withLock { $0 } == false, "the observer read an older suspension")
    #expect(!queue.isSuspended)
    #expect(!manager.isSuspended)
    #expect(await results.wait(forCount: 1))
    #expect(results.values.first?.failure is CancellationError)
    #expect(await becomesIdle(manager))
  }

  @Test func aCancelAllRacingASuspensionRestoresTheNewestDecision() async {
    let queue = HookedQueue()
    let manager = OperationQueueManager(queue: queue)
    // A cancel-all sweep begins while a suspension is decided and not yet written: the sweep
    // must restore that suspension, not the queue's older value it could read.
    let sweptMeanwhile = Locked(false)
    queue.beforeFirstWrite { _ in
      let swept = Gate()
      Thread.detachNewThread {
        manager.cancelAllOperations()
        swept.open()
      }
      let inTime = swept.block(timeout: .seconds(5))
      sweptMeanwhile.withLock { $0 = inTime }
    }

    await onOwnThread { manager.isSuspended = true }

    #expect(sweptMeanwhile.withLock { $0 }, "the cancel-all waited for the suspension's write")
    #expect(queue.isSuspended, "the sweep restored the suspension the queue had before")
    #expect(manager.isSuspended)
    manager.isSuspended = false
    #expect(!queue.isSuspended)
  }
}

/// A queue whose `isSuspended` setter runs a hook, once, before it writes: where an Apple
/// platform's key-value observer of the queue would run, with the writer's locks held.
private final class HookedQueue: OperationQueue, @unchecked Sendable {
  private let hook = Locked<(@Sendable (Bool) -> Void)?>(nil)

  /// Runs `body` with the value about to be written, at the next write only.
  func beforeFirstWrite(_ body: @escaping @Sendable (Bool) -> Void) {
    hook.withLock { $0 = body }
  }

  override var isSuspended: Bool {
    get { super.isSuspended }
    set {
      let body = hook.withLock { hook in
        defer { hook = nil }
        return hook
      }
      body?(newValue)
      super.isSuspended = newValue
    }
  }
}
