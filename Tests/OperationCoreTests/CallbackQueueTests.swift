import Dispatch
import Foundation
import OperationCore
import TestSupport
import Testing

@Suite struct CallbackQueueTests {
  @Test func eachJoinedWaiterRunsOnItsOwnDispatchQueue() async throws {
    let manager = OperationQueueManager(name: "callbacks.dispatch")
    let main = TaggedQueue("callbacks.dispatch.main")
    let background = TaggedQueue("callbacks.dispatch.background")
    let observations = Recorder<(label: String, onMain: Bool, onBackground: Bool, value: Int?)>()
    let operation = ManualOperation(key: 1)
    let requests = [operation, ManualOperation(key: 1), ManualOperation(key: 1)]
    for (request, queue) in zip(requests, [main, background, main]) {
      let admitted = manager.enqueue(request, callbackQueue: .dispatch(queue.queue)) {
        observations.record((queue.label, main.isCurrent, background.isCurrent, $0.value))
      }
      #expect(admitted === operation)
    }
    #expect(await operation.started.wait())
    operation.release(8)

    #expect(await observations.wait(forCount: 3))
    for observation in observations.values {
      #expect(observation.value == 8)
      #expect(observation.onMain == (observation.label == main.label))
      #expect(observation.onBackground == (observation.label == background.label))
    }
  }

  @Test func operationQueueCallbackRunsOnThatQueue() async throws {
    let manager = OperationQueueManager(name: "callbacks.operation")
    let callbackQueue = OperationQueue()
    callbackQueue.name = "callbacks.operation.target"
    let observations = Recorder<Bool>()
    let operation = ManualOperation()
    manager.enqueue(operation, callbackQueue: .operation(callbackQueue)) { _ in
      observations.record(OperationQueue.current === callbackQueue)
    }
    operation.addCompletion(on: .operation(callbackQueue)) { _ in
      observations.record(OperationQueue.current === callbackQueue)
    }
    #expect(await operation.started.wait())
    operation.release(1)

    #expect(await observations.wait(forCount: 2))
    #expect(observations.values == [true, true])
  }

  /// A handler waiting in an operation queue is called even if that queue's operations are
  /// cancelled: by that queue's `cancelAllOperations()`, or by the manager's own when its queue
  /// is the callback queue: it runs in an operation that ignores `cancel()`.
  @Test func aHandlerOnAnOperationQueueSurvivesThatQueuesCancelAll() async {
    let manager = OperationQueueManager(name: "callbacks.cancelAll")
    let callbackQueue = OperationQueue()
    callbackQueue.isSuspended = true
    let handled = Recorder<Int?>()
    let operation = ManualOperation(ending: .returning(3))
    manager.enqueue(operation, callbackQueue: .operation(callbackQueue)) {
      handled.record($0.value)
    }
    // The handler's operation waits in the suspended queue when everything there is cancelled.
    #expect(await eventually { callbackQueue.operationCount == 1 })
    callbackQueue.cancelAllOperations()
    callbackQueue.isSuspended = false
    #expect(await handled.wait(forCount: 1))
    #expect(handled.values == [3])
  }

  @Test func aHandlerOnItsManagersOwnQueueSurvivesTheManagersCancelAll() async {
    let manager = OperationQueueManager(name: "callbacks.ownQueue", maxConcurrentOperationCount: 1)
    let handled = Recorder<Int?>()
    let operation = ManualOperation()
    manager.enqueue(operation, callbackQueue: .operation(manager.queue)) {
      handled.record($0.value)
    }
    #expect(await operation.started.wait())
    let blocker = ManualOperation()
    manager.enqueue(blocker)
    operation.release(3)
    // The handler's operation waits behind the blocker, which holds the only slot.
    #expect(await blocker.started.wait())
    #expect(await eventually { manager.queue.operationCount == 2 })
    manager.cancelAllOperations()
    #expect(await handled.wait(forCount: 1))
    #expect(handled.values == [3])
    #expect(await becomesIdle(manager))
  }

  /// `execute(_:)` runs work where the layer calls a waiter's callback: on the dispatch queue,
  /// asynchronously, or in an operation of the operation queue that survives its cancel-all.
  @Test func executeRunsTheWorkOnTheQueueItNames() async {
    let tagged = TaggedQueue("callbacks.execute.dispatch")
    let operationQueue = OperationQueue()
    operationQueue.isSuspended = true
    let observations = Recorder<String>()

    tagged.queue.sync {
      CallbackQueue.dispatch(tagged.queue).execute {
        observations.record(tagged.isCurrent ? "dispatch" : "elsewhere")
      }
      // Asynchronous: the work waits for this block to end.
      observations.record("caller")
    }
    #expect(await observations.wait(forCount: 2))
    CallbackQueue.operation(operationQueue).execute {
      observations.record(OperationQueue.current === operationQueue ? "operation" : "elsewhere")
    }
    #expect(await eventually { operationQueue.operationCount == 1 })
    operationQueue.cancelAllOperations()
    operationQueue.isSuspended = false

    #expect(await observations.wait(forCount: 3))
    #expect(observations.values == ["caller", "dispatch", "operation"])
  }

  @Test func nilCallbackQueueRunsOnTheSettlingThread() async throws {
    let manager = OperationQueueManager(name: "callbacks.nil")
    let settler = TaggedQueue("callbacks.nil.settler")
    let observations = Recorder<Bool>()
    let operation = ManualOperation()
    manager.enqueue(operation) { _ in observations.record(settler.isCurrent) }
    operation.addCompletion { _ in observations.record(settler.isCurrent) }
    #expect(await operation.started.wait())

    settler.queue.async { operation.release(1) }

    #expect(await observations.wait(forCount: 2))
    #expect(observations.values == [true, true])
  }

  @Test func nilCallbackQueueOnCancelRunsOnTheCancellingThread() async throws {
    let manager = OperationQueueManager(name: "callbacks.nil.cancel")
    manager.isSuspended = true
    defer { manager.isSuspended = false }
    let canceller = TaggedQueue("callbacks.nil.canceller")
    let observations = Recorder<Bool>()
    let operation = ManualOperation(ending: .returning(1))
    manager.enqueue(operation) { _ in observations.record(canceller.isCurrent) }

    canceller.queue.async { operation.cancel() }

    #expect(await observations.wait(forCount: 1))
    #expect(observations.values == [true])
  }

  @Test func completionAddedAfterFinishStillRunsOnItsQueue() async throws {
    let manager = OperationQueueManager(name: "callbacks.late")
    let target = TaggedQueue("callbacks.late.target")
    let operation = ManualOperation(ending: .returning(6))
    manager.enqueue(operation)
    #expect(await becomesIdle(manager))

    let observations = Recorder<(onTarget: Bool, value: Int?)>()
    operation.addCompletion(on: .dispatch(target.queue)) {
      observations.record((target.isCurrent, $0.value))
    }
    #expect(await observations.wait(forCount: 1))
    #expect(observations.values.first?.onTarget == true)
    #expect(observations.values.first?.value == 6)
  }
}
