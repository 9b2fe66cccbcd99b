import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// `op.value()`: awaiting an operation that was enqueued some other way.
@Suite struct OperationValueTests {
  @Test func valueOfAnAlreadyEnqueuedOperation() async throws {
    let manager = OperationQueueManager(name: "value.enqueued")
    let operation = ManualOperation(key: 1)
    manager.enqueue(operation)
    let first = Task { try await operation.value() }
    let second = Task { try await operation.value() }
    #expect(await operation.started.wait())
    operation.release(8)
    await expectValue(8, from: first)
    await expectValue(8, from: second)
    #expect(operation.mainCalls.value == 1)
    #expect(await becomesIdle(manager))
  }

  @Test func valueOfAnAlreadyFinishedOperationReturnsAtOnce() async throws {
    let manager = OperationQueueManager(name: "value.finished")
    let operation = ManualOperation(key: 1)
    manager.enqueue(operation)
    #expect(await operation.started.wait())
    operation.release(6)
    #expect(await becomesIdle(manager))

    let task = Task { try await operation.value() }
    await expectValue(6, from: task, within: .seconds(30))
    #expect(operation.mainCalls.value == 1)
  }

  @Test func valueOfAnAlreadyCancelledOperationThrowsCancellationError() async throws {
    let manager = OperationQueueManager(name: "value.cancelled")
    let operation = ManualOperation(key: 1)
    manager.enqueue(operation)
    #expect(await operation.started.wait())
    operation.cancel()
    #expect(await becomesIdle(manager))
    let task = Task { try await operation.value() }
    await expectCancellation(of: task, within: .seconds(30))
  }

  @Test func cancellingAValueWaiterLeavesAnEnqueuedOperationRunning() async throws {
    let manager = OperationQueueManager(name: "value.leave")
    let operation = ManualOperation(key: 1)
    manager.enqueue(operation)
    #expect(await operation.started.wait())
    let leaving = Task { try await operation.value() }
    let staying = Task { try await operation.value() }
    leaving.cancel()
    await expectCancellation(of: leaving, within: .seconds(30))
    // Enqueued without a waiter: the plain enqueue keeps its interest.
    #expect(!operation.isCancelled)
    operation.release(2)
    await expectValue(2, from: staying)
  }

}
