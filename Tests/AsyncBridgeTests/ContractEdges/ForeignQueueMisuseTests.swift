import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// An operation that another `OperationQueue` holds, handed to a manager.
///
/// Where the layer can know, it never adds such an operation again: an operation a queue has
/// started or finished is awaited where it runs. A *pending* operation in another queue cannot
/// be told apart from one in no queue (neither corelibs nor Darwin exposes an operation's
/// queue), and Foundation traps when it is added to a second one: the last case pins that
/// platform behaviour, which docs/RELIABILITY.md states as a rule. Each case runs in a child
/// process, so a trap fails (or, in the last case, proves) it without ending the test run.
@Suite struct ForeignQueueMisuseTests {
  @Test func enqueueingAnOperationAPlainQueueStartedWaitsForItThere() async {
    await #expect(processExitsWith: .success) {
      let foreign = OperationQueue()
      let operation = ManualOperation(ending: .whenReleased)
      foreign.addOperation(operation)
      guard await operation.started.wait(timeout: .seconds(30)) else { exit(4) }
      let manager = OperationQueueManager(name: "edges.foreign.started")
      let handler = Recorder<Result<Int, any Error>>()
      manager.enqueue(operation) { handler.record($0) }
      operation.release(5)
      let called = await handler.wait(forCount: 1, timeout: .seconds(30))
      let value = try? handler.values.first?.get()
      withExtendedLifetime(foreign) { exit(called && value == 5 ? 0 : 3) }
    }
  }

  @Test func performingAnOperationAPlainQueueFinishedReturnsItsValue() async {
    await #expect(processExitsWith: .success) {
      let foreign = OperationQueue()
      let operation = ManualOperation(ending: .returning(6))
      foreign.addOperation(operation)
      guard await eventually(within: .seconds(30), { operation.isFinished }) else { exit(4) }
      let manager = OperationQueueManager(name: "edges.foreign.finished")
      let outcome = await result(
        of: Task { try await manager.perform(operation) }, within: .seconds(30))
      let value = if case .success(let value)? = outcome { value } else { -1 }
      withExtendedLifetime(foreign) { exit(value == 6 ? 0 : 3) }
    }
  }

  /// The platform fact behind the rule: Foundation traps when an operation pending in one
  /// queue is added to another. If this ever stops trapping, the layer can refuse such work
  /// with an error instead, and the rule in docs/RELIABILITY.md can go.
  @Test func addingAnOperationPendingInAPlainQueueToAManagerTrapsInFoundation() async {
    await #expect(processExitsWith: .failure) {
      let foreign = OperationQueue()
      foreign.isSuspended = true
      let operation = ManualOperation(ending: .returning(1))
      foreign.addOperation(operation)
      let manager = OperationQueueManager(name: "edges.foreign.pending")
      manager.enqueue(operation) { _ in }
      withExtendedLifetime(foreign) { exit(0) }
    }
  }
}
