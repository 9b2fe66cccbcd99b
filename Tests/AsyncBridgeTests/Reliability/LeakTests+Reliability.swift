import AsyncBridge
import Dispatch
import Foundation
import OperationCore
import TestSupport
import Testing

/// Something a completion handler captures, to see when the handler itself is freed.
private final class Captured: Sendable {}

/// Leaks after timeouts and cancellation, of waiters and of event subscribers. (Operations
/// and managers after completion and cancellation: `LeakTests.swift`.)
extension LeakTests {
  // MARK: Waiters

  @Test func waiterIsFreedWhenItsOperationTimesOutThoughTheOperationLives() async throws {
    let manager = OperationQueueManager(name: "leak.waiter.timeout")
    let operation = ManualOperation(key: 1)
    operation.timeout = .milliseconds(30)
    let delivered = Gate()
    let captured = Self.enqueue(operation, on: manager, capturing: delivered)

    #expect(await delivered.wait())
    #expect(throws: OperationTimeoutError.self) { try operation.result?.get() }
    // The operation is still here (this test holds it); its list of waiters must not be.
    #expect(await eventually { captured.isFreed })
    withExtendedLifetime(operation) {}
  }

  @Test func waiterIsFreedWhenItsOperationIsCancelledBeforeTheQueueStartsIt() async throws {
    let manager = OperationQueueManager(name: "leak.waiter.cancelPending")
    manager.isSuspended = true
    let operation = ManualOperation(key: 1)
    let delivered = Gate()
    let captured = Self.enqueue(operation, on: manager, capturing: delivered)

    operation.cancel()
    #expect(delivered.isOpen)
    // Not finished yet (its suspended queue has not started it), but nobody waits any more.
    #expect(!operation.isFinished)
    #expect(await eventually { captured.isFreed })
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
    withExtendedLifetime(operation) {}
  }

  @Test func operationCapturedByItsOwnHandlerIsFreedAfterTimingOut() async throws {
    let (operation, manager) = await Self.handlerCapturingItsOperation(cancelledBeforeStart: false)
    #expect(await eventually { operation.isFreed })
    #expect(await eventually { manager.isFreed })
  }

  @Test func operationCapturedByItsOwnHandlerIsFreedAfterCancellationBeforeStart()
    async throws
  {
    let (operation, manager) = await Self.handlerCapturingItsOperation(cancelledBeforeStart: true)
    #expect(await eventually { operation.isFreed })
    #expect(await eventually { manager.isFreed })
  }

  @Test func awaitedOperationThatTimedOutIsFreedWithItsManager() async throws {
    let (operation, manager) = await {
      () async -> (
        WeakReference<Operation>, WeakReference<OperationQueueManager>
      ) in
      let manager = OperationQueueManager(name: "leak.perform.timeout")
      let operation = ManualOperation(key: 1)
      operation.timeout = .milliseconds(30)
      let task = Task { try await manager.perform(operation) }
      let outcome = await result(of: task)
      #expect(throws: OperationTimeoutError.self) { try outcome?.get() }
      #expect(await becomesIdle(manager))
      return (WeakReference(operation), WeakReference(manager))
    }()
    #expect(await eventually { operation.isFreed })
    #expect(await eventually { manager.isFreed })
  }

  // MARK: Event subscribers

  @Test func eventSubscriberNeverKeepsItsManagerAlive() async throws {
    let (manager, hub, iterating) = await {
      () async -> (
        WeakReference<OperationQueueManager>, WeakReference<OperationEventHub>, Task<Int, Never>
      ) in
      let manager = OperationQueueManager(name: "leak.events.manager")
      let events = manager.makeEvents()
      let iterating = counting(events)
      let value = try? await withDeadline {
        try await manager.perform(ManualOperation(ending: .returning(1)))
      }
      #expect(value == 1)
      #expect(manager.events.hasSubscribers)
      return (WeakReference(manager), WeakReference(manager.events), iterating)
    }()

    // The stream is still being iterated, yet its manager is gone.
    #expect(await eventually { manager.isFreed })
    iterating.cancel()
    #expect(await value(of: iterating) != nil)
    // Cancelling the iterating task ends the subscription, and with it the last reference.
    #expect(await eventually { hub.isFreed })
  }

  @Test func everySubscriberCancelledWhileEventsPourInIsRemoved() async throws {
    let manager = OperationQueueManager(name: "leak.events.busy", maxConcurrentOperationCount: 4)
    let subscribers = (0..<8).map { _ in
      counting(manager.makeEvents(bufferSize: 16))
    }
    #expect(manager.events.hasSubscribers)
    let publisher = Task.detached {
      for value in 0..<2_000 { manager.enqueue(ManualOperation(ending: .returning(value))) }
    }
    // Cancelled while the publisher runs: some between two events, some in the middle.
    for (index, subscriber) in subscribers.enumerated() {
      if index.isMultiple(of: 2) { await Task.yield() }
      subscriber.cancel()
    }
    for subscriber in subscribers { #expect(await value(of: subscriber) != nil) }
    #expect(await value(of: publisher) != nil)
    #expect(await becomesIdle(manager))
    #expect(await eventually { !manager.events.hasSubscribers })
  }

  // MARK: Scenarios

  /// Enqueues `operation` with a handler that captures an object and opens `delivered`;
  /// returns a weak reference to the captured object.
  private static func enqueue(
    _ operation: ManualOperation, on manager: OperationQueueManager, capturing delivered: Gate
  ) -> WeakReference<Captured> {
    let captured = Captured()
    manager.enqueue(operation) { _ in
      withExtendedLifetime(captured) { delivered.open() }
    }
    return WeakReference(captured)
  }

  /// A handler that holds its own operation strongly, the cycle an operation and its
  /// completion handler form until the operation settles; ended by a timeout or by a cancel
  /// before the queue starts the operation.
  private static func handlerCapturingItsOperation(cancelledBeforeStart: Bool) async -> (
    WeakReference<Operation>, WeakReference<OperationQueueManager>
  ) {
    let manager = OperationQueueManager(name: "leak.handler.cycle")
    manager.isSuspended = cancelledBeforeStart
    let operation = ManualOperation(key: 1)
    operation.timeout = .milliseconds(30)
    let delivered = Gate()
    manager.enqueue(operation) { _ in
      withExtendedLifetime(operation) { delivered.open() }
    }
    if cancelledBeforeStart {
      operation.cancel()
      manager.isSuspended = false
    }
    #expect(await delivered.wait())
    #expect(await becomesIdle(manager))
    return (WeakReference(operation), WeakReference(manager))
  }
}
