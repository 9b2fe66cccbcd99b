import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// `manager.waitUntilIdle()`: awaiting idleness without blocking a thread.
@Suite struct WaitUntilIdleTests {
  @Test func returnsOnceTheLastOperationFinishes() async throws {
    let manager = OperationQueueManager(name: "idle.returns")
    let first = ManualOperation(key: 1)
    let second = ManualOperation(key: 2)
    manager.enqueue(first)
    manager.enqueue(second)
    #expect(await first.started.wait())
    #expect(await second.started.wait())
    let returned = Gate()
    let waiters = (0..<3).map { _ in
      Task {
        try await manager.waitUntilIdle()
        returned.open()
      }
    }
    first.release(1)
    #expect(await returned.wait(timeout: .milliseconds(100)) == false)
    #expect(manager.outstandingOperationCount == 1)

    second.release(2)
    for waiter in waiters { await expectSuccess(of: waiter) }
    #expect(manager.isIdle)
  }

  /// A handler called on a callback queue may still wait there after its operation finished:
  /// the manager is not idle until it has returned, so `waitUntilIdle()` never returns first.
  @Test(arguments: [false, true])
  func aHandlerWaitingOnItsCallbackQueueKeepsTheManagerFromBeingIdle(
    onAnOperationQueue: Bool
  ) async throws {
    let manager = OperationQueueManager(name: "idle.callbackQueue")
    let dispatchQueue = DispatchQueue(label: "idle.callbackQueue.target")
    let operationQueue = OperationQueue()
    dispatchQueue.suspend()
    operationQueue.isSuspended = true
    let handled = Recorder<Int?>()
    manager.enqueue(
      ManualOperation(ending: .returning(4)),
      callbackQueue: onAnOperationQueue ? .operation(operationQueue) : .dispatch(dispatchQueue)
    ) { handled.record(try? $0.get()) }
    #expect(await eventually { manager.outstandingOperationCount == 0 })
    #expect(!manager.isIdle)
    let returned = Gate()
    let waiter = Task {
      try await manager.waitUntilIdle()
      returned.open()
      return handled.values
    }
    #expect(await returned.wait(timeout: .milliseconds(200)) == false)
    dispatchQueue.resume()
    operationQueue.isSuspended = false
    #expect((try? await result(of: waiter)?.get()) == [4])
    #expect(manager.isIdle)
  }

  /// Waiters are resumed before the queue slot is released: while a completion handler is
  /// still running, the operation is outstanding and the manager is not idle.
  @Test func aCompletionHandlerStillRunningKeepsTheManagerFromBeingIdle() async throws {
    let manager = OperationQueueManager(name: "idle.handler")
    let operation = ManualOperation(key: 1)
    let handlerEntered = Gate()
    let handlerMayReturn = Gate()
    manager.enqueue(operation) { _ in
      handlerEntered.open()
      _ = handlerMayReturn.block(timeout: .seconds(60))
    }
    #expect(await operation.started.wait())
    DispatchQueue.global().async { operation.release(1) }
    #expect(await handlerEntered.wait())

    #expect(manager.outstandingOperationCount == 1)
    #expect(!manager.isIdle)
    let returned = Gate()
    let waiter = Task {
      try await manager.waitUntilIdle()
      returned.open()
    }
    #expect(await returned.wait(timeout: .milliseconds(200)) == false)
    #expect(manager.outstandingOperationCount == 1)

    handlerMayReturn.open()
    await expectSuccess(of: waiter)
    #expect(manager.outstandingOperationCount == 0)
  }

  @Test func returnsAtOnceWhenAlreadyIdle() async throws {
    let manager = OperationQueueManager(name: "idle.atOnce")
    // Idle: the wait is satisfied on the spot (nothing is registered to wait for).
    let idleWaiter = OperationWaiter(interest: .untilSettled, callbackQueue: nil) { _ in }
    #expect(manager.whenIdle(idleWaiter) == nil)
    #expect(await becomesIdle(manager, within: .seconds(30)))

    #expect(
      try await withDeadline { try await manager.perform(ManualOperation(ending: .returning(1))) }
        == 1)
    #expect(await becomesIdle(manager, within: .seconds(30)))
    #expect(manager.whenIdle(idleWaiter) == nil)
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  @Test func cancellationThrowsWithoutAffectingPendingOperations() async throws {
    let manager = OperationQueueManager(name: "idle.cancel")
    let operation = ManualOperation(key: 1)
    let performer = Task { try await manager.perform(operation) }
    #expect(await operation.started.wait())

    let waiter = Task { try await manager.waitUntilIdle() }
    // Registered before it is cancelled, so that leaving takes it out of the manager's list.
    #expect(await eventually { manager.idleWaiterCount == 1 })
    waiter.cancel()
    await expectCancellation(of: waiter, within: .seconds(30))
    #expect(manager.idleWaiterCount == 0)
    #expect(!operation.isCancelled)
    #expect(operation.isExecuting)
    #expect(manager.outstandingOperationCount == 1)

    operation.release(3)
    await expectValue(3, from: performer)
    #expect(await becomesIdle(manager))
  }

  @Test func alreadyCancelledTaskThrowsWhileOperationsArePending() async throws {
    let manager = OperationQueueManager(name: "idle.earlyCancel")
    let operation = ManualOperation(key: 1)
    manager.enqueue(operation)
    let cancelled = Gate()
    let waiter = Task {
      await cancelled.wait()
      try await manager.waitUntilIdle()
    }
    waiter.cancel()
    cancelled.open()
    await expectCancellation(of: waiter, within: .seconds(30))
    #expect(!operation.isCancelled)
    #expect(manager.outstandingOperationCount == 1)
    #expect(await operation.started.wait())
    operation.release(1)
    #expect(await becomesIdle(manager))
  }
}
