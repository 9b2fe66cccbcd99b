import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

@Suite struct LifecycleTests {
  @Test func executingAndFinishedFollowTheLifecycle() async throws {
    let manager = OperationQueueManager(name: "lifecycle.flags")
    let operation = ManualOperation()
    #expect(!operation.isExecuting)
    #expect(!operation.isFinished)
    #expect(operation.isAsynchronous)

    manager.enqueue(operation)
    #expect(await operation.started.wait())
    #expect(operation.wasExecutingInMain)
    #expect(operation.isExecuting)
    #expect(!operation.isFinished)

    operation.release(1)
    #expect(!operation.isExecuting)
    #expect(operation.isFinished)
    #expect(!operation.isCancelled)
    #expect(await becomesIdle(manager))
  }

  @Test func aFinishWhileTheStartIsAnnouncedIsReportedAfterIt() async throws {
    let manager = OperationQueueManager(name: "lifecycle.startAnnouncement")
    let operation = ManualOperation()
    let kinds = Locked<[OperationEvent.Kind]>([])
    // Handlers run on the publishing thread, under the operation's lock: this one starts a
    // finish on another thread the moment `started` goes out, and gives it time to land.
    let subscription = manager.events.subscribe(
      OperationEventHub.Subscriber(
        receive: { event in
          if event.kind == .started {
            let finished = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
              operation.release(7)
              finished.signal()
            }
            _ = finished.wait(timeout: .now() + .milliseconds(50))
          }
          kinds.withLock { $0.append(event.kind) }
        }, finish: {}))
    defer { manager.events.unsubscribe(subscription) }
    let value = await completing(within: .seconds(30)) {
      await withCheckedContinuation { continuation in
        manager.enqueue(operation) { continuation.resume(returning: try? $0.get()) }
      }
    }
    #expect(value == 7)
    #expect(await becomesIdle(manager))
    #expect(kinds.withLock { $0 } == [.enqueued, .started, .finished(.success)])
    #expect(operation.mainCallCount == 1)
  }

  @Test func resultIsNilUntilFinishedThenHoldsTheValue() async throws {
    let manager = OperationQueueManager(name: "lifecycle.result")
    let operation = ManualOperation()
    manager.enqueue(operation)
    #expect(await operation.started.wait())
    #expect(operation.result == nil)

    operation.release(42)
    #expect(try operation.result?.get() == 42)
  }

  @Test func finishingWithAFailureKeepsTheError() async throws {
    let manager = OperationQueueManager(name: "lifecycle.failure")
    let results = ResultRecorder()
    let operation = ManualOperation()
    manager.enqueue(operation) { results.record($0) }
    #expect(await operation.started.wait())

    operation.finish(throwing: TestFailure.broken(7))
    #expect(results.count == 1)
    #expect(results.values.first?.failure as? TestFailure == TestFailure.broken(7))
    #expect(operation.result?.failure as? TestFailure == TestFailure.broken(7))
    #expect(operation.isFinished)
    #expect(!operation.isCancelled)
  }

  @Test func secondFinishIsANoOp() async throws {
    let manager = OperationQueueManager(name: "lifecycle.finishTwice")
    let results = ResultRecorder()
    let operation = ManualOperation()
    manager.enqueue(operation) { results.record($0) }
    #expect(await operation.started.wait())

    operation.release(1)
    operation.release(2)
    operation.finish(throwing: TestFailure.broken(3))

    #expect(results.count == 1)
    #expect(results.values.first?.value == 1)
    #expect(try operation.result?.get() == 1)
    #expect(operation.isFinished)
    #expect(manager.outstandingOperationCount == 0)
  }

  @Test func finishingReleasesTheSlotForTheNextOperation() async throws {
    let manager = OperationQueueManager(name: "lifecycle.slot", maxConcurrentOperationCount: 1)
    let first = ManualOperation()
    let firstWasFinishedWhenSecondStarted = Recorder<Bool>()
    let second = ManualOperation(ending: .returning(2)) { _ in
      firstWasFinishedWhenSecondStarted.record(first.isFinished)
    }
    manager.enqueue(first)
    manager.enqueue(second)
    #expect(await first.started.wait())
    #expect(!second.started.isOpen)

    first.release(1)
    #expect(await second.started.wait())
    #expect(firstWasFinishedWhenSecondStarted.values == [true])
    #expect(await becomesIdle(manager))
    #expect(try second.result?.get() == 2)
  }

  @Test func widthOneQueueRunsOperationsInEnqueueOrder() async throws {
    let manager = OperationQueueManager(name: "lifecycle.order", maxConcurrentOperationCount: 1)
    let order = Recorder<Int>()
    let running = AsyncCounter()
    let overlaps = AsyncCounter()
    let operations = (0..<20).map { index in
      ManualOperation(ending: .returning(index)) { _ in
        if running.increment() > 1 { overlaps.increment() }
        order.record(index)
      }
    }
    manager.isSuspended = true
    for operation in operations {
      // Waiters are resumed before the queue hears the operation finished, so the count
      // drops before the next operation may start.
      manager.enqueue(operation) { _ in running.decrement() }
    }
    manager.isSuspended = false

    #expect(await becomesIdle(manager))
    #expect(order.values == Array(0..<20))
    #expect(overlaps.value == 0)
  }

  @Test func addCompletionOnAFinishedOperationIsCalledAtOnce() async throws {
    let manager = OperationQueueManager(name: "lifecycle.lateCompletion")
    let operation = ManualOperation(ending: .returning(9))
    manager.enqueue(operation)
    #expect(await becomesIdle(manager))
    #expect(operation.isFinished)

    let results = ResultRecorder()
    operation.addCompletion { results.record($0) }
    #expect(results.count == 1)
    #expect(results.values.first?.value == 9)
  }

  @Test func completionAddedBeforeFinishIsCalledOnceWithTheValue() async throws {
    let manager = OperationQueueManager(name: "lifecycle.addCompletion")
    let operation = ManualOperation()
    let results = ResultRecorder()
    manager.enqueue(operation)
    operation.addCompletion { results.record($0) }
    operation.addCompletion { results.record($0) }
    #expect(await operation.started.wait())
    #expect(results.count == 0)

    operation.release(5)
    #expect(results.values.compactMap(\.value) == [5, 5])
  }

  @Test func enqueueingTheSameInstanceTwiceJustWaitsForIt() async throws {
    let manager = OperationQueueManager(name: "lifecycle.twice")
    manager.isSuspended = true
    let results = ResultRecorder()
    let operation = ManualOperation()
    let first = manager.enqueue(operation) { results.record($0) }
    let second = manager.enqueue(operation) { results.record($0) }
    #expect(first === operation)
    #expect(second === operation)
    #expect(manager.outstandingOperationCount == 1)

    manager.isSuspended = false
    #expect(await operation.started.wait())
    // A third request while it executes also only waits.
    manager.enqueue(operation) { results.record($0) }
    operation.release(3)

    #expect(await becomesIdle(manager))
    #expect(results.values.compactMap(\.value) == [3, 3, 3])
    #expect(operation.mainCallCount == 1)

    // After it finished, enqueueing it again delivers its result instead of trapping.
    manager.enqueue(operation) { results.record($0) }
    #expect(results.values.compactMap(\.value) == [3, 3, 3, 3])
    #expect(manager.isIdle)
  }

  @Test func outstandingCountAndIsIdleTrackEnqueuedWork() async throws {
    let manager = OperationQueueManager(name: "lifecycle.outstanding")
    #expect(manager.isIdle)
    #expect(manager.outstandingOperationCount == 0)

    let first = ManualOperation(key: 1)
    let second = ManualOperation(key: 2)
    manager.enqueue(first)
    manager.enqueue(second)
    manager.enqueue(ManualOperation(key: 1)) { _ in }  // joins `first`: not counted
    #expect(manager.outstandingOperationCount == 2)
    #expect(!manager.isIdle)

    #expect(await first.started.wait())
    first.release(1)
    #expect(manager.outstandingOperationCount == 1)
    #expect(!manager.isIdle)

    #expect(await second.started.wait())
    second.release(2)
    #expect(manager.outstandingOperationCount == 0)
    #expect(manager.isIdle)
  }
}
