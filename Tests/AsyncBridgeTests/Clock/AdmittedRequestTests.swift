import AsyncBridge
import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// `manager.admit(_:)` and `AdmittedRequest.value()`: `perform`'s two halves apart.
@Suite struct AdmittedRequestTests {
  @Test func anAdmittedRequestGivesTheValueAsPerformDoes() async throws {
    let manager = OperationQueueManager(name: "admit.value")
    let operation = ManualOperation(key: 1)
    let request = manager.admit(operation)
    #expect(await operation.started.wait())

    operation.release(5)

    #expect(try await request.value() == 5)
  }

  @Test func admittedRequestsForOneKeyShareOneOperation() async throws {
    let manager = OperationQueueManager(name: "admit.coalesced")
    let first = ManualOperation(key: 1)
    let second = ManualOperation(key: 1)
    let requests = [manager.admit(first), manager.admit(second)]
    #expect(await first.started.wait())

    first.release(8)

    #expect(try await requests[0].value() == 8)
    #expect(try await requests[1].value() == 8)
    #expect(second.mainCallCount == 0)
  }

  /// Admitted in a timer's action, the request is a caller of its work when the advance
  /// returns, before the waiting task runs again.
  @Test func aRequestAdmittedWhenAWaitEndsIsACallerBeforeTheAdvanceReturns() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "admit.timer", clock: clock)
    let operation = ManualOperation(key: 1)
    let priority = Operation.QueuePriority(TaskPriority.high)
    let deadline = manager.clock.now.advanced(by: .seconds(1))
    let caller = Task {
      let request = try await manager.clock.sleep(until: deadline) {
        manager.admit(operation, priority: priority)
      }
      return try await request.value()
    }
    try await clock.waitUntilTimers(1)

    await clock.advance(by: .seconds(1))
    let callers = manager.callerCount(forKey: operation.coalescingKey!)
    #expect(await operation.started.wait())
    operation.release(4)

    #expect(callers == 1)
    #expect(operation.queuePriority == .high)
    await expectValue(4, from: caller)
  }

  @Test func cancellingTheAwaitingTaskLeavesAndCancelsWorkNobodyElseWaitsFor() async throws {
    let manager = OperationQueueManager(name: "admit.cancel-late")
    let operation = ManualOperation(key: 1)
    let caller = Task { try await manager.admit(operation).value() }
    #expect(await operation.started.wait())

    caller.cancel()

    await expectCancellation(of: caller)
    #expect(operation.isCancelled)
  }

  @Test func aTaskCancelledBeforeAdmittingGetsCancellationErrorWithoutEnqueueing() async throws {
    let manager = OperationQueueManager(name: "admit.cancel-early")
    let operation = ManualOperation(key: 1)
    let caller = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await manager.admit(operation).value()
    }

    await expectCancellation(of: caller)
    #expect(manager.outstandingOperationCount == 0)
    #expect(operation.mainCallCount == 0)
    #expect(!operation.isCancelled)
  }
}
