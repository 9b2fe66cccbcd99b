import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// Operations that become ready only inside their own queue (`Legacy/ConditionalOperation.swift`):
/// they stay there, and callers await them with `waitUntilFinished(_:)`, which enqueues, starts
/// and cancels nothing. Handed to a manager instead, such an operation is never ready in time and
/// fails with `ForeignOperationError.notReady`.
@Suite struct OwnQueueReadinessTests {
  @Test func anOperationReadyOnlyInItsOwnQueueIsAwaitedThere() async throws {
    let manager = OperationQueueManager(name: "readiness.own-queue")
    let queue = ConditionalQueue()
    let count = CountWordsOperation(text: "one two three")
    queue.addOperation(count)
    try await manager.waitUntilFinished(count)
    #expect(count.wordCount == 3)
  }

  @Test func handedToAManagerItFailsAsNotReady() async {
    let manager = OperationQueueManager(name: "readiness.handed-over")
    let count = CountWordsOperation(text: "one two three")
    let task = Task { try await manager.perform(count) }
    let failure = await error(of: task)
    guard case .notReady? = failure as? ForeignOperationError else {
      Issue.record("expected notReady, got \(String(describing: failure))")
      return
    }
    #expect(count.wordCount == nil)
  }
}
