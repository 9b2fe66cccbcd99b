import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// `cancelAllOperations()` covers every operation admitted before it: an `enqueued` event is
/// published only once the operation is where cancel-all finds it.
@Suite struct CancelAllAdmissionTests {
  @Test(arguments: [nil, 1] as [Int?])
  func cancelAllCalledAsSoonAsAnOperationIsReportedEnqueuedCancelsIt(key: Int?) async throws {
    let manager = OperationQueueManager(name: "edges.cancelAll", maxConcurrentOperationCount: 1)
    let invariants = EventInvariants(manager)
    let operation = ManualOperation(key: key, ending: .whenReleased)
    invariants.track(operation)
    let operationID = ObjectIdentifier(operation)
    let swept = Gate()
    // As soon as the event is published. A subscriber only buffers events (it is called under
    // the operation's lock), so the sweep runs on another thread, right after.
    let tap = EventLog(manager, hearing: .publishingThread) { event in
      guard event.kind == .enqueued, event.operationID == operationID, !swept.isOpen else {
        return
      }
      DispatchQueue.global().async {
        manager.cancelAllOperations()
        swept.open()
      }
    }
    let handler = Recorder<Result<Int, any Error>>()
    let enqueueReturned = Gate()
    // On a thread of its own, so a deadlock inside the event fails the test instead of
    // blocking the concurrency pool.
    Thread.detachNewThread {
      manager.enqueue(operation) { handler.record($0) }
      enqueueReturned.open()
    }
    #expect(await enqueueReturned.wait(timeout: .seconds(30)), "enqueue did not return")
    #expect(await swept.wait(timeout: .seconds(30)))
    #expect(
      await handler.wait(forCount: 1, timeout: .seconds(30)),
      "the operation reported enqueued before cancelAllOperations() was not cancelled")
    #expect(handler.values.first.map(EventInvariants.completion(of:)) == .cancelled)
    for result in handler.values { invariants.received(result, from: operation) }
    operation.release(0)  // Unjams the queue if the sweep missed it.
    await invariants.expectValid(manager)
    withExtendedLifetime(tap) {}
  }
}
