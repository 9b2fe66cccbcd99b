import Foundation
import OperationCore
import TestSupport
import Testing

@Suite struct CancelAllTests {
  @Test func cancelAllOnARunningQueueCancelsExecutingAndPendingWork() async throws {
    let manager = OperationQueueManager(name: "cancelAll.running", maxConcurrentOperationCount: 2)
    let results = ResultRecorder()
    let operations = (0..<6).map { ManualOperation(key: $0) }
    for operation in operations {
      manager.enqueue(operation) { results.record($0) }
    }
    #expect(await operations[0].started.wait())
    #expect(await operations[1].started.wait())

    manager.cancelAllOperations()

    #expect(await results.wait(forCount: 6))
    #expect(results.values.allSatisfy { $0.isCancellation })
    #expect(await becomesIdle(manager))
    #expect(operations.allSatisfy { $0.isFinished })
    #expect(operations.allSatisfy { $0.isCancelled })
    // Executing work was told to stop; pending work never started.
    #expect(operations[0].cancelHookCallCount == 1)
    #expect(operations[1].cancelHookCallCount == 1)
    #expect(operations[2...].allSatisfy { $0.mainCallCount == 0 })
    #expect(results.count == 6)
  }

  @Test func cancelAllOnASuspendedQueueResumesWaitersWhileSuspended() async throws {
    let manager = OperationQueueManager(name: "cancelAll.suspended")
    manager.isSuspended = true
    let results = ResultRecorder()
    let operations = (0..<5).map { ManualOperation(key: $0, ending: .returning($0)) }
    for operation in operations {
      manager.enqueue(operation) { results.record($0) }
    }
    manager.enqueue(ManualOperation(key: 0)) { results.record($0) }  // a joined waiter

    manager.cancelAllOperations()

    // Every waiter is resumed although the queue has not started anything.
    #expect(results.count == 6)
    #expect(results.values.allSatisfy { $0.isCancellation })
    #expect(manager.isSuspended)
    #expect(operations.allSatisfy { !$0.isFinished })
    #expect(manager.outstandingOperationCount == 5)

    manager.isSuspended = false
    #expect(await becomesIdle(manager))
    #expect(operations.allSatisfy { $0.isFinished })
    #expect(operations.allSatisfy { $0.mainCallCount == 0 })
    #expect(results.count == 6)
  }
}
