import AsyncBridge
import Dispatch
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Setting the queue priority of shared work runs other code: on Apple platforms, the setter
/// sends key-value notifications to the operation's observers. The library sets it holding no
/// lock, so such an observer may change priorities itself, even of other shared work, and neither
/// call waits for the other.
@Suite struct PriorityKeyValueObserverTests {
  /// An operation whose priority setter runs `onChange`, as a key-value observer of
  /// `queuePriority` runs on Apple platforms.
  private final class ObservedOperation: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
    let onChange = Locked<(@Sendable (Operation.QueuePriority) -> Void)?>(nil)

    override var queuePriority: Operation.QueuePriority {
      didSet {
        let body = onChange.withLock { $0 }
        body?(queuePriority)
      }
    }
  }

  @Test func anObserverOfOnePrioritySetterRaisesOtherSharedWork() async throws {
    let manager = OperationQueueManager(name: "priority.observer", maxConcurrentOperationCount: 1)
    manager.isSuspended = true
    let first = ObservedOperation(coalescingKey: "first")
    let second = ObservedOperation(coalescingKey: "second")
    let settled = AsyncCounter()
    let count: @Sendable (Result<Int, any Error>) -> Void = { _ in settled.increment() }
    manager.enqueue(first, priority: .low, completion: count)
    manager.enqueue(second, priority: .low, completion: count)
    // When the first work is raised, its key-value observer raises the second by a request that joins it.
    first.onChange.withLock {
      $0 = { priority in
        guard priority == .high else { return }
        manager.enqueue(
          ObservedOperation(coalescingKey: "second"), priority: .veryHigh, completion: count)
      }
    }

    let joined = await completing(within: .seconds(10)) {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        DispatchQueue.global().async {
          manager.enqueue(
            ObservedOperation(coalescingKey: "first"), priority: .high, completion: count)
          continuation.resume(returning: true)
        }
      }
    }
    #expect(joined != nil, "a request raising shared work waited for its own observer")
    #expect(first.queuePriority == .high)
    #expect(second.queuePriority == .veryHigh)

    manager.cancelAllOperations()
    manager.isSuspended = false
    #expect(await settled.wait(untilAtLeast: 4))
    #expect(await becomesIdle(manager))
  }
}
