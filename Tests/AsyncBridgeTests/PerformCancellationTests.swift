import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// `manager.perform(_:)` and task cancellation: early (before calling in) and late (while
/// waiting) are separate paths, tested separately.
@Suite struct PerformCancellationTests {
  @Test func performRethrowsTheOperationsFailure() async throws {
    let manager = OperationQueueManager(name: "perform.failure")
    let operation = ManualOperation(key: 1)
    let task = Task { try await manager.perform(operation) }
    #expect(await operation.started.wait())
    operation.fail(TestFailure.broken(7))
    let outcome = await result(of: task)
    #expect(throws: TestFailure.broken(7)) { try outcome?.get() }
  }

  @Test func alreadyCancelledTaskGetsCancellationErrorWithoutEnqueueing() async throws {
    let manager = OperationQueueManager(name: "cancel.early")
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let cancelled = Gate()
    let task = Task {
      await cancelled.wait()  // Ignores cancellation: the task calls in already cancelled.
      #expect(Task.isCancelled)
      return try await manager.perform(operation)
    }
    task.cancel()
    cancelled.open()
    await expectCancellation(of: task, within: .seconds(30))

    #expect(manager.outstandingOperationCount == 0)
    #expect(manager.inFlightOperation(for: operation.coalescingKey!) == nil)
    #expect(operation.mainCalls.value == 0)
    #expect(!operation.isCancelled)
    #expect(operation.result == nil)
    #expect(await log.flush(manager))
    #expect(log.kinds(of: operation).isEmpty)

    // The untouched operation can still be performed by someone else.
    let later = Task { try await manager.perform(operation) }
    #expect(await operation.started.wait())
    operation.release(3)
    await expectValue(3, from: later)
  }

  @Test func cancellingWhileExecutingCancelsTheOperationAndFreesTheQueue() async throws {
    let manager = OperationQueueManager(name: "cancel.late", maxConcurrentOperationCount: 1)
    let operation = ManualOperation(key: 1)
    let task = Task { try await manager.perform(operation) }
    #expect(await operation.started.wait())
    #expect(operation.isExecuting)

    task.cancel()
    await expectCancellation(of: task, within: .seconds(30))
    // The only waiter left, so the operation was cancelled and told to stop, once.
    #expect(operation.isCancelled)
    #expect(operation.cancelHookCalls.value == 1)
    #expect(await becomesIdle(manager))
    #expect(operation.isFinished)

    // A late finish is a no-op and the queue slot is free for new work.
    operation.release(99)
    #expect(throws: CancellationError.self) { try operation.result?.get() }
    let next = ManualOperation(ending: .returning(5))
    #expect(try await withDeadline { try await manager.perform(next) } == 5)
    #expect(operation.cancelHookCalls.value == 1)
    #expect(operation.mainCalls.value == 1)
  }

  @Test func cancellingWhileQueueIsSuspendedResumesTheTaskPromptly() async throws {
    let manager = OperationQueueManager(name: "cancel.suspended")
    manager.isSuspended = true
    let operation = ManualOperation(key: 1)
    let task = await taskPerformingEnqueued(operation, on: manager)

    // The queue cannot make progress here, so resuming at all proves the cancellation path
    // resumed the task by itself; the bound only turns a hang into a failure.
    task.cancel()
    await expectCancellation(of: task, within: .seconds(30))
    #expect(manager.isSuspended)
    #expect(operation.isCancelled)
    #expect(operation.mainCalls.value == 0)
    // Still queued: corelibs must start it before it may report finished.
    #expect(manager.outstandingOperationCount == 1)
    #expect(!operation.isFinished)

    manager.isSuspended = false
    #expect(await becomesIdle(manager))
    #expect(operation.isFinished)
    #expect(operation.mainCalls.value == 0)
    #expect(operation.cancelHookCalls.value == 0)
  }

  @Test func cancellingWhilePendingBehindABlockerResumesAtOnce() async throws {
    let manager = OperationQueueManager(name: "cancel.pending", maxConcurrentOperationCount: 1)
    let blocker = ManualOperation(key: 0)
    let blockerTask = Task { try await manager.perform(blocker) }
    #expect(await blocker.started.wait())

    let operation = ManualOperation(key: 1)
    let task = await taskPerformingEnqueued(operation, on: manager)

    // The queue cannot make progress here, so resuming at all proves the cancellation path
    // resumed the task by itself; the bound only turns a hang into a failure.
    task.cancel()
    await expectCancellation(of: task, within: .seconds(30))
    #expect(operation.isCancelled)
    #expect(operation.mainCalls.value == 0)
    #expect(!blocker.isCancelled)
    #expect(blocker.isExecuting)
    #expect(manager.outstandingOperationCount == 2)

    blocker.release(7)
    await expectValue(7, from: blockerTask)
    #expect(await becomesIdle(manager))
    #expect(operation.mainCalls.value == 0)
    #expect(operation.cancelHookCalls.value == 0)
  }

  /// The last awaiting caller's departure and the work's cancellation are one step: a request
  /// for the key that arrives while the caller is leaving either joins before it has left (and
  /// keeps the work going) or starts fresh work after. Here it arrives from inside the
  /// departure, just before the work would be cancelled; it must never get that cancellation.
  @Test func aRequestArrivingAsTheLastCallerLeavesNeverGetsTheWorksCancellation() async throws {
    let manager = OperationQueueManager(name: "cancel.lastLeavesAsOneJoins")
    let working = DepartureHookOperation(key: 1)
    let leaver = Task { try await manager.perform(working) }
    #expect(await working.started.wait())
    // Of the same class, so that it can join (a key names its operation's class).
    let request = DepartureHookOperation(key: 1, ending: .returning(2))
    let received = Recorder<Result<Int, any Error>>()
    working.onNextCancellationQuery {
      manager.enqueue(request) { received.record($0) }
    }

    leaver.cancel()
    await expectCancellation(of: leaver, within: .seconds(30))
    working.release(1)
    #expect(await received.wait(forCount: 1))
    switch received.values.first {
    case .success(1)?:
      // Joined before the caller left: the work went on for the request.
      #expect(!working.isCancelled)
    case .success(2)?:
      // Came after: fresh work.
      #expect(working.isCancelled)
    case let other:
      Issue.record("the request got \(String(describing: other))")
    }
    #expect(await becomesIdle(manager))
  }
}

/// Runs a one-shot hook the next time its cancellation behaviour is read, which a departing
/// caller's removal does just before it would cancel the work.
private final class DepartureHookOperation: TestOperation<any Error>, @unchecked Sendable {
  private let hook = Locked<(@Sendable () -> Void)?>(nil)

  /// Runs `body` (once) at the next read of ``finishesImmediatelyWhenCancelled``.
  func onNextCancellationQuery(_ body: @escaping @Sendable () -> Void) {
    hook.withLock { $0 = body }
  }

  override var finishesImmediatelyWhenCancelled: Bool {
    hook.withLock { $0.take() }?()
    return super.finishesImmediatelyWhenCancelled
  }
}
