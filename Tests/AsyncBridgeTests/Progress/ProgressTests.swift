import AsyncBridge
import Dispatch
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Shared progress: every coalesced caller is handed the work's progress, a late joiner the
/// current value at once; calls are serial, newest value first, never backwards, and never
/// after the caller has its outcome.
@Suite struct ProgressTests {
  private func progress(_ completed: Int64, of total: Int64?) -> OperationProgress {
    OperationProgress(completed: completed, total: total)
  }

  @Test func fractionIsKnownOnlyWithATotal() {
    #expect(progress(3, of: 10).fractionCompleted == 0.3)
    #expect(progress(3, of: nil).fractionCompleted == nil)
    #expect(progress(0, of: 0).fractionCompleted == 1)
    #expect(progress(12, of: 10).fractionCompleted == 1)
    #expect(progress(-4, of: -1) == progress(0, of: nil))
  }

  @Test func reportsNeverGoBackwards() {
    let operation = ManualOperation(key: 1)
    #expect(operation.currentProgress == nil)
    operation.reportProgress(completed: 5, total: 10)
    operation.reportProgress(completed: 3, total: 10)  // fewer units: dropped
    #expect(operation.currentProgress == progress(5, of: 10))
    operation.reportProgress(completed: 6, total: nil)  // a known share turns unknown: dropped
    operation.reportProgress(completed: 6, total: 20)  // a smaller share: dropped
    #expect(operation.currentProgress == progress(5, of: 10))
    operation.reportProgress(completed: 7, total: 10)
    #expect(operation.currentProgress == progress(7, of: 10))
  }

  @Test func reportsAfterTheOperationSettledAreDropped() async throws {
    let manager = OperationQueueManager(name: "progress.settled")
    let operation = ManualOperation(key: 1, ending: .returning(1))
    operation.reportProgress(completed: 1, total: 2)
    #expect(try await manager.perform(operation) == 1)
    operation.reportProgress(completed: 2, total: 2)
    #expect(operation.currentProgress == progress(1, of: 2))
  }

  @Test func coalescedCallersShareOneProgressAndALateJoinerGetsTheCurrentValue() async throws {
    let manager = OperationQueueManager(name: "progress.share")
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let first = Recorder<OperationProgress>()
    let firstCall = Task { try await manager.perform(operation, onProgress: first.record) }
    #expect(await operation.started.wait())
    operation.reportProgress(completed: 3, total: 10)
    #expect(await first.wait(forCount: 1))

    // Joins after the report: handed the current value at once, without another report.
    let second = Recorder<OperationProgress>()
    let secondCall = Task {
      try await manager.perform(ManualOperation(key: 1), onProgress: second.record)
    }
    #expect(await log.wait(for: .joined, of: operation))
    #expect(await second.wait(forCount: 1))
    #expect(second.values == [progress(3, of: 10)])

    operation.reportProgress(completed: 7, total: 10)
    #expect(await first.wait(forCount: 2))
    #expect(await second.wait(forCount: 2))
    operation.release(42)
    await expectValue(42, from: firstCall)
    await expectValue(42, from: secondCall)
    #expect(first.values == [progress(3, of: 10), progress(7, of: 10)])
    #expect(second.values == [progress(3, of: 10), progress(7, of: 10)])
    #expect(operation.mainCallCount == 1)
    #expect(await becomesIdle(manager))
  }

  @Test func aSlowObserverGetsTheNewestValueNotABacklog() async throws {
    let manager = OperationQueueManager(name: "progress.slow")
    let operation = ManualOperation(key: 1)
    let inFirstCall = Gate()
    let finishFirstCall = Gate()
    let seen = Recorder<OperationProgress>()
    let call = Task {
      try await manager.perform(operation) { progress in
        seen.record(progress)
        if progress.completedUnitCount == 1 {
          inFirstCall.open()
          _ = finishFirstCall.block()
        }
      }
    }
    #expect(await operation.started.wait())
    operation.reportProgress(completed: 1, total: 5)
    #expect(await inFirstCall.wait())
    // While the observer is busy, four values come and go: it gets only the newest.
    for completed in Int64(2)...5 { operation.reportProgress(completed: completed, total: 5) }
    finishFirstCall.open()
    #expect(await seen.wait(forCount: 2))
    operation.release(1)
    await expectValue(1, from: call)
    #expect(seen.values == [progress(1, of: 5), progress(5, of: 5)])
  }

  @Test func theCallReturnsOnlyAfterAProgressCallInFlightHasReturned() async throws {
    let manager = OperationQueueManager(name: "progress.serial")
    let operation = ManualOperation(key: 1)
    let inCall = Gate()
    let finishCall = Gate()
    let order = Recorder<String>()
    let call = Task {
      let value = try await manager.perform(operation) { progress in
        inCall.open()
        _ = finishCall.block()
        order.record("progress \(progress.completedUnitCount)")
      }
      order.record("returned")
      return value
    }
    #expect(await operation.started.wait())
    operation.reportProgress(completed: 1, total: nil)
    #expect(await inCall.wait())
    // The work settles while the caller's progress call runs: the call returns after it.
    operation.release(7)
    finishCall.open()
    await expectValue(7, from: call)
    #expect(order.values == ["progress 1", "returned"])
  }

  @Test func aCallerThatLeavesIsCalledNoMore() async throws {
    let manager = OperationQueueManager(name: "progress.leave")
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let leaving = Recorder<OperationProgress>()
    let staying = Recorder<OperationProgress>()
    let leavingCall = Task { try await manager.perform(operation, onProgress: leaving.record) }
    #expect(await operation.started.wait())
    let stayingCall = Task {
      try await manager.perform(ManualOperation(key: 1), onProgress: staying.record)
    }
    #expect(await log.wait(for: .joined, of: operation))
    operation.reportProgress(completed: 1, total: 3)
    #expect(await leaving.wait(forCount: 1))
    #expect(await staying.wait(forCount: 1))

    leavingCall.cancel()
    await expectCancellation(of: leavingCall, within: .testTimeout)
    operation.reportProgress(completed: 2, total: 3)
    #expect(await staying.wait(forCount: 2))
    operation.release(5)
    await expectValue(5, from: stayingCall)
    #expect(leaving.values == [progress(1, of: 3)])
    #expect(staying.values == [progress(1, of: 3), progress(2, of: 3)])
  }

  @Test func cancelAllEndsProgressForEveryCaller() async throws {
    let manager = OperationQueueManager(name: "progress.cancelAll")
    let operation = ManualOperation(key: 1)
    let seen = Recorder<OperationProgress>()
    let call = Task { try await manager.perform(operation, onProgress: seen.record) }
    #expect(await operation.started.wait())
    operation.reportProgress(completed: 1, total: 2)
    #expect(await seen.wait(forCount: 1))
    manager.cancelAllOperations()
    await expectCancellation(of: call, within: .testTimeout)
    operation.reportProgress(completed: 2, total: 2)
    #expect(operation.currentProgress == progress(1, of: 2))
    #expect(seen.values == [progress(1, of: 2)])
    #expect(await becomesIdle(manager))
  }

  @Test func completionHandlersSeeProgressOnTheirQueueAndTheResultLast() async throws {
    let manager = OperationQueueManager(name: "progress.enqueue")
    let queue = DispatchQueue(label: "progress.enqueue.callbacks")
    let operation = ManualOperation(key: 1)
    let order = Recorder<String>()
    let onQueue = Locked(true)
    manager.enqueue(
      operation, callbackQueue: .dispatch(queue),
      onProgress: { progress in
        if DispatchQueue.getSpecific(key: Self.queueKey) == nil { onQueue.withLock { $0 = false } }
        order.record("progress \(progress.completedUnitCount)")
      }
    ) { result in
      if DispatchQueue.getSpecific(key: Self.queueKey) == nil { onQueue.withLock { $0 = false } }
      order.record("result \((try? result.get()) ?? -1)")
    }
    queue.setSpecific(key: Self.queueKey, value: ())
    #expect(await operation.started.wait())
    operation.reportProgress(completed: 4, total: 8)
    #expect(await order.wait(forCount: 1))
    operation.release(9)
    #expect(await order.wait(forCount: 2))
    #expect(order.values == ["progress 4", "result 9"])
    #expect(onQueue.withLock { $0 })
    #expect(await becomesIdle(manager))
  }

  @Test func aCompletionHandlerJoiningLateGetsTheCurrentValue() async throws {
    let manager = OperationQueueManager(name: "progress.enqueue.late")
    let operation = ManualOperation(key: 1)
    manager.enqueue(operation)
    #expect(await operation.started.wait())
    operation.reportProgress(completed: 2, total: 4)
    let seen = Recorder<OperationProgress>()
    let result = Recorder<Int>()
    manager.enqueue(ManualOperation(key: 1), onProgress: seen.record) {
      result.record((try? $0.get()) ?? -1)
    }
    #expect(await seen.wait(forCount: 1))
    #expect(seen.values == [progress(2, of: 4)])
    operation.release(3)
    #expect(await result.wait(forCount: 1))
    #expect(result.values == [3])
  }

  private static let queueKey = DispatchSpecificKey<Void>()
}
