import Foundation
import OperationCore
import TestSupport
import Testing

@Suite struct CancellationTests {
  // MARK: Before the queue starts the operation

  @Test func cancelBeforeStartResumesEveryWaiterAtOnce() async throws {
    let manager = OperationQueueManager(name: "cancel.early.waiters")
    manager.isSuspended = true
    defer { manager.isSuspended = false }
    let results = ResultRecorder()
    let operation = ManualOperation(key: 1)
    manager.enqueue(operation) { results.record($0) }
    manager.enqueue(ManualOperation(key: 1)) { results.record($0) }
    operation.addCompletion { results.record($0) }
    #expect(results.count == 0)

    operation.cancel()
    // Delivered synchronously on the cancelling thread: no queue had to start anything.
    #expect(results.count == 3)
    #expect(results.values.allSatisfy { $0.isCancellation })
    #expect(operation.isCancelled)
    #expect(operation.result?.isCancellation == true)
  }

  @Test func cancelBeforeStartIsNotFinishedUntilTheQueueStartsIt() async throws {
    let manager = OperationQueueManager(name: "cancel.early.finish")
    manager.isSuspended = true
    let operation = ManualOperation(ending: .returning(1))
    manager.enqueue(operation) { _ in }

    operation.cancel()
    #expect(operation.isCancelled)
    #expect(!operation.isFinished)
    #expect(!operation.isExecuting)
    #expect(manager.outstandingOperationCount == 1)

    manager.isSuspended = false
    #expect(await eventually { operation.isFinished })
    #expect(await becomesIdle(manager))
    #expect(operation.mainCallCount == 0)
    #expect(operation.cancelHookCallCount == 0)
    #expect(operation.result?.isCancellation == true)
  }

  @Test func cancelBeforeEnqueueDeliversCancellationAndNeverRunsMain() async throws {
    let manager = OperationQueueManager(name: "cancel.beforeEnqueue")
    let operation = ManualOperation(ending: .returning(1))
    operation.cancel()
    let results = ResultRecorder()
    manager.enqueue(operation) { results.record($0) }

    #expect(results.count == 1)
    #expect(results.values.first?.isCancellation == true)
    #expect(await becomesIdle(manager))
    #expect(operation.isFinished)
    #expect(operation.mainCallCount == 0)
  }

  // MARK: While executing

  @Test func cancelWhileExecutingCallsTheHookOnceAndResumesWaitersOnce() async throws {
    let manager = OperationQueueManager(name: "cancel.executing")
    let results = ResultRecorder()
    let operation = ManualOperation(key: 1)
    manager.enqueue(operation) { results.record($0) }
    manager.enqueue(ManualOperation(key: 1)) { results.record($0) }
    #expect(await operation.started.wait())

    operation.cancel()
    operation.cancel()
    operation.release(5)  // the work ends late: ignored
    operation.cancel()

    #expect(results.count == 2)
    #expect(results.values.allSatisfy { $0.isCancellation })
    #expect(operation.cancelHookCallCount == 1)
    #expect(operation.isCancelled)
    #expect(operation.isFinished)
    #expect(!operation.isExecuting)
    #expect(operation.result?.isCancellation == true)
    #expect(await becomesIdle(manager))
  }

  @Test func cancelWhileExecutingReleasesTheQueueSlot() async throws {
    let manager = OperationQueueManager(name: "cancel.slot", maxConcurrentOperationCount: 1)
    let hung = ManualOperation()
    let next = ManualOperation(ending: .returning(2))
    let results = ResultRecorder()
    manager.enqueue(hung)
    manager.enqueue(next) { results.record($0) }
    #expect(await hung.started.wait())
    #expect(!next.started.isOpen)

    hung.cancel()  // its work never calls finish
    #expect(await results.wait(forCount: 1))
    #expect(results.values.first?.value == 2)
    #expect(await becomesIdle(manager))
    #expect(hung.isFinished)
  }

  @Test func keepingTheSlotWhenCancelledHoldsItUntilFinish() async throws {
    let manager = OperationQueueManager(name: "cancel.keepSlot", maxConcurrentOperationCount: 1)
    let slow = ManualOperation(keepsSlotWhenCancelled: true)
    let slowFinishedAtNextStart = Recorder<Bool>()
    let next = ManualOperation(ending: .returning(2)) { _ in
      slowFinishedAtNextStart.record(slow.isFinished)
    }
    let results = ResultRecorder()
    manager.enqueue(slow) { results.record($0) }
    manager.enqueue(next)
    #expect(await slow.started.wait())

    slow.cancel()
    // Waiters do not wait for the work to stop...
    #expect(results.count == 1)
    #expect(results.values.first?.isCancellation == true)
    #expect(await slow.cancelHookCalled.wait())
    // ...but the slot stays taken until the work reports it stopped.
    #expect(slow.isExecuting)
    #expect(!slow.isFinished)
    #expect(slow.isCancelled)
    #expect(!next.started.isOpen)
    #expect(manager.outstandingOperationCount == 2)

    slow.release(1)
    #expect(slow.isFinished)
    #expect(!slow.isExecuting)
    #expect(await next.started.wait())
    #expect(slowFinishedAtNextStart.values == [true])
    #expect(await becomesIdle(manager))
    // The late finish did not replace the cancellation or resume anybody again.
    #expect(results.count == 1)
    #expect(slow.result?.isCancellation == true)
    #expect(slow.cancelHookCallCount == 1)
  }

  // MARK: After finishing

  @Test func cancelAfterFinishHasNoEffect() async throws {
    let manager = OperationQueueManager(name: "cancel.late")
    let results = ResultRecorder()
    let operation = ManualOperation(ending: .returning(4))
    manager.enqueue(operation) { results.record($0) }
    #expect(await becomesIdle(manager))

    operation.cancel()
    #expect(!operation.isCancelled)
    #expect(operation.isFinished)
    #expect(try operation.result?.get() == 4)
    #expect(operation.cancelHookCallCount == 0)
    #expect(results.values.compactMap(\.value) == [4])
  }

  @Test func cancelOnAnOperationNeverEnqueuedIsSafe() async throws {
    let operation = ManualOperation()
    let results = ResultRecorder()
    operation.addCompletion { results.record($0) }
    operation.cancel()
    operation.cancel()
    #expect(operation.isCancelled)
    #expect(!operation.isFinished)
    #expect(results.count == 1)
    #expect(results.values.first?.isCancellation == true)
    #expect(operation.cancelHookCallCount == 0)
  }
}
