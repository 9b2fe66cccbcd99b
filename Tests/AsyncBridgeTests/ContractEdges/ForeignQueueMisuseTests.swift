import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// An operation already pending in another `OperationQueue` handed to a manager: Foundation
/// traps when it is added to a second queue, so the layer must refuse it with an error its
/// waiter receives, and the process must survive (issue 11, defect 4). Each case runs in a
/// child process, so a trap fails the case instead of ending the test run.
///
/// The cases expect any error; narrow them to the error type the layer chooses.
@Suite struct ForeignQueueMisuseTests {
  @Test func enqueueingAnOperationPendingInAPlainQueueFailsItsHandler() async {
    await #expect(processExitsWith: .success) {
      let (foreign, operation) = ForeignQueueMisuseTests.pendingInAPlainQueue()
      let manager = OperationQueueManager(name: "edges.foreign.handler")
      let handler = Recorder<Result<Int, any Error>>()
      manager.enqueue(operation) { handler.record($0) }
      let called = await handler.wait(forCount: 1, timeout: .seconds(5))
      let failed = called && (try? handler.values.first?.get()) == nil
      withExtendedLifetime(foreign) { exit(failed ? 0 : 3) }
    }
  }

  @Test func performingAnOperationPendingInAPlainQueueThrows() async {
    await #expect(processExitsWith: .success) {
      let (foreign, operation) = ForeignQueueMisuseTests.pendingInAPlainQueue()
      let manager = OperationQueueManager(name: "edges.foreign.perform")
      let outcome = await result(
        of: Task { try await manager.perform(operation) }, within: .seconds(5))
      let failed = if case .failure? = outcome { true } else { false }
      withExtendedLifetime(foreign) { exit(failed ? 0 : 3) }
    }
  }

  /// An operation pending in a suspended plain queue, with that queue (keep it alive).
  static func pendingInAPlainQueue() -> (OperationQueue, ManualOperation) {
    let foreign = OperationQueue()
    foreign.isSuspended = true
    let operation = ManualOperation(ending: .returning(1))
    foreign.addOperation(operation)
    return (foreign, operation)
  }

  /// Added to the manager's own (public) queue behind its back: the waiter gets an error or,
  /// if the layer chooses to wait for it there, its value; never a trap or a hang.
  @Test func enqueueingAnOperationAddedToTheManagersQueueDirectlyNeverTraps() async {
    await #expect(processExitsWith: .success) {
      let manager = OperationQueueManager(name: "edges.foreign.own")
      manager.isSuspended = true
      let operation = ManualOperation(ending: .returning(1))
      manager.queue.addOperation(operation)
      let handler = Recorder<Result<Int, any Error>>()
      manager.enqueue(operation) { handler.record($0) }
      manager.isSuspended = false
      let called = await handler.wait(forCount: 1, timeout: .seconds(5))
      exit(called ? 0 : 3)
    }
  }
}
