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
