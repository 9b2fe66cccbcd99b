import Foundation
import OperationCore
import TestSupport
import Testing

@Suite struct CoalescingTests {
  @Test func sameKeyJoinsOneExecutionAndEveryWaiterGetsTheValue() async throws {
    let manager = OperationQueueManager(name: "coalescing.join")
    manager.isSuspended = true
    let results = ResultRecorder()
    let candidates = (0..<5).map { _ in ManualOperation(key: 7) }
    let admitted = candidates.map { manager.enqueue($0) { results.record($0) } }

    #expect(admitted.allSatisfy { $0 === candidates[0] })
    #expect(manager.outstandingOperationCount == 1)
    manager.isSuspended = false
    #expect(await candidates[0].started.wait())
    // Joining an executing operation works too.
    manager.enqueue(ManualOperation(key: 7)) { results.record($0) }
    candidates[0].release(99)

    #expect(results.values.compactMap(\.value) == Array(repeating: 99, count: 6))
    #expect(candidates[0].mainCallCount == 1)
    // The dropped candidates, which the test still holds, never run; each finishes with the
    // work it joined, so whatever depends on it or waits for it goes on.
    let dropped = candidates.dropFirst()
    #expect(dropped.allSatisfy { $0.mainCallCount == 0 })
    #expect(await eventually { dropped.allSatisfy(\.isFinished) })
    #expect(dropped.allSatisfy { $0.result.map { try? $0.get() } == 99 })
    #expect(await becomesIdle(manager))
  }

  @Test func differentKeysDoNotJoin() async throws {
    let manager = OperationQueueManager(name: "coalescing.keys")
    let results = ResultRecorder()
    let first = ManualOperation(key: 1, ending: .returning(10))
    let second = ManualOperation(key: 2, ending: .returning(20))
    #expect(manager.enqueue(first) { results.record($0) } === first)
    #expect(manager.enqueue(second) { results.record($0) } === second)

    #expect(await results.wait(forCount: 2))
    #expect(Set(results.values.compactMap(\.value)) == [10, 20])
    #expect(first.mainCallCount == 1)
    #expect(second.mainCallCount == 1)
  }

  @Test func operationsWithoutKeysNeverJoin() async throws {
    let manager = OperationQueueManager(name: "coalescing.none")
    manager.isSuspended = true
    let first = ManualOperation(ending: .returning(1))
    let second = ManualOperation(ending: .returning(2))
    #expect(first.coalescingKey == nil)
    #expect(manager.enqueue(first) === first)
    #expect(manager.enqueue(second) === second)
    #expect(manager.outstandingOperationCount == 2)
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
    #expect(first.mainCallCount == 1)
    #expect(second.mainCallCount == 1)
  }

  @Test func differentOperationClassesWithEqualKeysDoNotJoin() async throws {
    let manager = OperationQueueManager(name: "coalescing.classes")
    manager.isSuspended = true
    let results = ResultRecorder()
    let base = ManualOperation(key: 5, ending: .returning(1))
    let subclass = OtherManualOperation(key: 5, ending: .returning(2))
    #expect(base.coalescingKey != subclass.coalescingKey)
    #expect(manager.enqueue(base) { results.record($0) } === base)
    #expect(manager.enqueue(subclass) { results.record($0) } === subclass)
    #expect(manager.outstandingOperationCount == 2)
    manager.isSuspended = false

    #expect(await results.wait(forCount: 2))
    #expect(Set(results.values.compactMap(\.value)) == [1, 2])
    #expect(base.mainCallCount == 1)
    #expect(subclass.mainCallCount == 1)
  }

  @Test func keysAreNamespacedByClassAndValueType() {
    let first = CoalescingKey(operationType: ManualOperation.self, valueType: Int.self, base: 3)
    let same = CoalescingKey(operationType: ManualOperation.self, valueType: Int.self, base: 3)
    let otherBase = CoalescingKey(operationType: ManualOperation.self, valueType: Int.self, base: 4)
    let otherClass = CoalescingKey(
      operationType: OtherManualOperation.self, valueType: Int.self, base: 3)
    let otherValue = CoalescingKey(
      operationType: ManualOperation.self, valueType: String.self, base: 3)
    let stringBase = CoalescingKey(
      operationType: ManualOperation.self, valueType: Int.self, base: "3")
    let int64Base = CoalescingKey(
      operationType: ManualOperation.self, valueType: Int.self, base: Int64(3))

    #expect(first == same)
    #expect(first.hashValue == same.hashValue)
    #expect(
      Set([first, same, otherBase, otherClass, otherValue, stringBase, int64Base]).count == 6)
    #expect(first.baseValue as? Int == 3)
    #expect(first.description.contains("TestOperation"))
    #expect(first.description.contains("3"))
    #expect(ManualOperation(key: 3).coalescingKey == first)
  }

  /// Who cancels the pending operation before an identical request arrives.
  enum Canceller: CaseIterable, Sendable {
    case itsOwner, cancelAll
  }

  /// The identical request runs fresh, whoever cancelled the pending one.
  @Test(arguments: Canceller.allCases)
  func cancelledOperationIsNeverJoined(cancelledBy canceller: Canceller) async throws {
    let manager = OperationQueueManager(name: "coalescing.cancelled")
    manager.isSuspended = true
    let results = ResultRecorder()
    let cancelled = ManualOperation(key: 1, ending: .returning(1))
    manager.enqueue(cancelled) { results.record($0) }
    switch canceller {
    case .itsOwner: cancelled.cancel()
    case .cancelAll: manager.cancelAllOperations()
    }

    let fresh = ManualOperation(key: 1, ending: .returning(2))
    #expect(manager.enqueue(fresh) { results.record($0) } === fresh)
    #expect(manager.inFlightOperation(for: fresh.coalescingKey!) === fresh)
    manager.isSuspended = false

    #expect(await results.wait(forCount: 2))
    #expect(results.values.first?.isCancellation == true)
    #expect(results.values.last?.value == 2)
    #expect(await becomesIdle(manager))
    #expect(cancelled.mainCallCount == 0)
    #expect(fresh.mainCallCount == 1)
  }

  @Test func finishedOperationIsNeverJoined() async throws {
    let manager = OperationQueueManager(name: "coalescing.finished")
    let first = ManualOperation(key: 1, ending: .returning(1))
    manager.enqueue(first)
    #expect(await becomesIdle(manager))
    #expect(manager.inFlightOperation(for: first.coalescingKey!) == nil)

    let results = ResultRecorder()
    let second = ManualOperation(key: 1, ending: .returning(2))
    #expect(manager.enqueue(second) { results.record($0) } === second)
    #expect(await results.wait(forCount: 1))
    #expect(results.values.first?.value == 2)
    #expect(first.mainCallCount == 1)
    #expect(second.mainCallCount == 1)
  }

  @Test func inFlightIndexHoldsPendingAndExecutingWorkOnly() async throws {
    let manager = OperationQueueManager(name: "coalescing.index")
    manager.isSuspended = true
    let operation = ManualOperation(key: 3)
    let key = try #require(operation.coalescingKey)
    #expect(manager.inFlightOperation(for: key) == nil)

    manager.enqueue(operation)
    #expect(manager.inFlightOperation(for: key) === operation)
    manager.isSuspended = false
    #expect(await operation.started.wait())
    #expect(manager.inFlightOperation(for: key) === operation)

    operation.release(1)
    #expect(manager.inFlightOperation(for: key) == nil)
  }

  @Test func lateFinishOfACancelledOperationKeepsTheNewerIndexEntry() async throws {
    let manager = OperationQueueManager(name: "coalescing.lateFinish")
    let old = ManualOperation(key: 1, keepsSlotWhenCancelled: true)
    let key = try #require(old.coalescingKey)
    manager.enqueue(old)
    #expect(await old.started.wait())
    old.cancel()
    #expect(manager.inFlightOperation(for: key) == nil)

    let newer = ManualOperation(key: 1)
    #expect(manager.enqueue(newer) === newer)
    #expect(manager.inFlightOperation(for: key) === newer)

    old.release(1)  // the cancelled work stops late
    #expect(old.isFinished)
    #expect(manager.inFlightOperation(for: key) === newer)

    // The newer entry is still joinable.
    let results = ResultRecorder()
    #expect(manager.enqueue(ManualOperation(key: 1)) { results.record($0) } === newer)
    #expect(await newer.started.wait())
    newer.release(2)
    #expect(results.values.compactMap(\.value) == [2])
    #expect(manager.inFlightOperation(for: key) == nil)
    #expect(await becomesIdle(manager))
  }

  @Test func cancelledPendingOperationStartingLaterKeepsTheNewerIndexEntry() async throws {
    let manager = OperationQueueManager(
      name: "coalescing.lateStart", maxConcurrentOperationCount: 1)
    manager.isSuspended = true
    let old = ManualOperation(key: 1, ending: .returning(1))
    let key = try #require(old.coalescingKey)
    manager.enqueue(old)
    old.cancel()
    let newer = ManualOperation(key: 1)
    manager.enqueue(newer)
    #expect(manager.inFlightOperation(for: key) === newer)

    manager.isSuspended = false
    #expect(await newer.started.wait())
    #expect(old.isFinished)  // width 1: the old one went first
    #expect(manager.inFlightOperation(for: key) === newer)
    newer.release(2)
    #expect(manager.inFlightOperation(for: key) == nil)
  }

  @Test func enqueueingAnAlreadyCancelledOperationLeavesNoIndexEntry() async throws {
    let manager = OperationQueueManager(name: "coalescing.preCancelled")
    manager.isSuspended = true
    let cancelled = ManualOperation(key: 1, ending: .returning(1))
    let key = try #require(cancelled.coalescingKey)
    cancelled.cancel()
    let results = ResultRecorder()
    manager.enqueue(cancelled) { results.record($0) }

    #expect(results.values.first?.isCancellation == true)
    #expect(manager.inFlightOperation(for: key) == nil)
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
    #expect(manager.inFlightOperation(for: key) == nil)
  }

  @Test func enqueueingAnOperationFinishedBeforeEnqueueLeavesNoIndexEntry() async throws {
    let manager = OperationQueueManager(name: "coalescing.preFinished")
    let finished = ManualOperation(key: 1)
    let key = try #require(finished.coalescingKey)
    finished.release(3)  // settled by hand before any queue saw it
    let results = ResultRecorder()
    manager.enqueue(finished) { results.record($0) }

    #expect(results.values.compactMap(\.value) == [3])
    #expect(manager.inFlightOperation(for: key) == nil)
    #expect(await becomesIdle(manager))
    #expect(finished.isFinished)
    #expect(finished.mainCallCount == 0)
  }

  @Test func joiningRaisesAPendingOperationsPriorityButNeverLowersIt() async throws {
    let manager = OperationQueueManager(name: "coalescing.priority")
    manager.isSuspended = true
    defer { manager.isSuspended = false }
    let operation = ManualOperation(key: 1, ending: .returning(1))
    manager.enqueue(operation, priority: .low)
    #expect(operation.queuePriority == .low)

    manager.enqueue(ManualOperation(key: 1), priority: .high) { _ in }
    #expect(operation.queuePriority == .high)

    manager.enqueue(ManualOperation(key: 1), priority: .veryLow) { _ in }
    #expect(operation.queuePriority == .high)

    manager.enqueue(ManualOperation(key: 1)) { _ in }
    #expect(operation.queuePriority == .high)
  }

  @Test func raisedPriorityRunsFirstOnAWidthOneQueue() async throws {
    let manager = OperationQueueManager(name: "coalescing.order", maxConcurrentOperationCount: 1)
    manager.isSuspended = true
    let order = Recorder<Int>()
    let operations = (0..<4).map { index in
      ManualOperation(key: index, ending: .returning(index)) { _ in order.record(index) }
    }
    for operation in operations { manager.enqueue(operation) }
    manager.enqueue(ManualOperation(key: 3), priority: .veryHigh) { _ in }
    manager.isSuspended = false

    #expect(await becomesIdle(manager))
    #expect(order.values == [3, 0, 1, 2])
  }
}
