import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Cancelling callers of foreign operations: per-waiter, the legacy `cancel()` that finishes a
/// pending operation, cancel-all, and operations that never check `isCancelled`.
@Suite struct CancellationForeignTests {
  @Test func anAlreadyCancelledTaskEnqueuesNothing() async {
    let manager = OperationQueueManager()
    let service = ManualQuestionService()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await manager.perform(FetchTitlesOperation(site: "s", service: service))
    }
    #expect(await error(of: task) is CancellationError)
    #expect(manager.isIdle)
    #expect(service.requestCount == 0)
  }

  @Test func cancellingTheOnlyWaiterOfAPendingOperationResumesAtOnceInASuspendedQueue() async {
    let manager = OperationQueueManager()
    manager.isSuspended = true
    let fetch = FetchTitlesOperation(site: "s", service: ManualQuestionService())
    let task = Task { try await manager.perform(fetch) }
    #expect(await eventually(within: .seconds(30)) { manager.outstandingOperationCount == 1 })
    task.cancel()
    #expect(await error(of: task) is CancellationError)
    // The adapter finishes once its queue starts it; then the foreign operation is cancelled
    // (its `cancel()` finishes it at once, outside any queue).
    manager.isSuspended = false
    #expect(await becomesIdle(manager, within: .seconds(30)))
    #expect(await eventually(within: .seconds(30)) { fetch.isCancelled && fetch.isFinished })
  }

  /// A legacy `cancel()` that reports a pending operation finished hangs corelibs' queue when
  /// the operation sits in it (docs/RELIABILITY.md). Here the operation never sits in a queue:
  /// its adapter does. Hundreds of rounds, each cancelling pending legacy work behind a busy
  /// width-1 queue, leave the queue working.
  @Test func legacyCancelFinishingPendingWorkNeverHangsTheQueue() async {
    let manager = OperationQueueManager(maxConcurrentOperationCount: 1)
    for round in 0..<300 {
      let blocker = FetchTitlesOperation(site: "blocker", service: ManualQuestionService())
      let blocking = Task { try await manager.perform(blocker) }
      let pending = (0..<3).map { index in
        FetchTitlesOperation(site: "\(round)-\(index)", service: ManualQuestionService())
      }
      let waiters = pending.map { fetch in Task { try await manager.perform(fetch) } }
      // Half the rounds cancel the foreign operations themselves (their `cancel()` finishes
      // them while pending), half cancel the awaiting tasks.
      if round.isMultiple(of: 2) {
        #expect(await eventually(within: .seconds(30)) { manager.outstandingOperationCount == 4 })
        for fetch in pending { fetch.cancel() }
      } else {
        for waiter in waiters { waiter.cancel() }
      }
      for waiter in waiters {
        guard await error(of: waiter) is CancellationError else { return }
      }
      blocking.cancel()
      guard await error(of: blocking) is CancellationError else { return }
    }
    let last = Task { try await manager.perform(BlockOperation {}) }
    #expect(await result(of: last) != nil)
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  @Test func oneOfTwoWaitersLeavingKeepsTheWorkForTheOther() async {
    let manager = OperationQueueManager()
    let events = EventLog(manager)
    let service = ManualQuestionService()
    let first = Task {
      try await manager.perform(
        FetchTitlesOperation(site: "s", service: service), coalescingKey: "s")
    }
    #expect(await service.firstRequest.wait())
    let second = Task {
      try await manager.perform(
        FetchTitlesOperation(site: "s", service: service), coalescingKey: "s")
    }
    #expect(await events.wait { $0.kind == .joined })
    first.cancel()
    #expect(await error(of: first) is CancellationError)
    service.answer(.success(["shared"]))
    #expect(await value(of: second) == ["shared"])
    #expect(service.requestCount == 1)
  }

  @Test func theOperationIsCancelledWhenItsLastWaiterLeaves() async {
    let manager = OperationQueueManager()
    let events = EventLog(manager)
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "s", service: service)
    let tasks = (0..<2).map { _ in Task { try await manager.perform(fetch) } }
    #expect(await service.firstRequest.wait())
    #expect(await events.wait { $0.kind == .joined })
    tasks[0].cancel()
    #expect(await error(of: tasks[0]) is CancellationError)
    #expect(!fetch.isCancelled)
    tasks[1].cancel()
    #expect(await error(of: tasks[1]) is CancellationError)
    #expect(await eventually(within: .seconds(30)) { fetch.isCancelled })
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  @Test func aCompletionHandlerKeepsTheWorkWhenTheAwaitingTaskLeaves() async {
    let manager = OperationQueueManager()
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "s", service: service)
    let handled = Locked<Result<[String], any Error>?>(nil)
    let handlerCalled = Gate()
    manager.enqueue(fetch) { result in
      handled.withLock { $0 = result }
      handlerCalled.open()
    }
    let task = Task { try await manager.perform(fetch) }
    #expect(await service.firstRequest.wait())
    task.cancel()
    #expect(await error(of: task) is CancellationError)
    service.answer(.success(["kept"]))
    #expect(await handlerCalled.wait())
    #expect((try? handled.withLock { $0 }?.get()) == ["kept"])
    #expect(!fetch.isCancelled)
  }

  /// How a second request reaches an instance already in flight.
  enum SecondRequest: CaseIterable, Sendable {
    /// The first request gave a key, the second none.
    case withoutTheKey
    /// Both gave keys, different ones.
    case underAnotherKey
    /// Through another manager.
    case throughAnotherManager
  }

  /// One instance is one piece of work, however it is asked for: a second request under
  /// another key (or none) or through another manager joins the instance's adapter, already
  /// running it. So the first caller leaving never cancels the operation under the second.
  @Test(arguments: SecondRequest.allCases)
  func oneInstanceRequestedTwoWaysIsSharedAndOneCallerLeavingKeepsItForTheOther(
    second: SecondRequest
  ) async {
    let manager = OperationQueueManager()
    let other = second == .throughAnotherManager ? OperationQueueManager() : manager
    let events = EventLog(manager)
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "s", service: service)
    let first = Task { try await manager.perform(fetch, coalescingKey: "first") }
    #expect(await service.firstRequest.wait())
    let secondCall = Task {
      switch second {
      case .withoutTheKey, .throughAnotherManager: try await other.perform(fetch)
      case .underAnotherKey: try await other.perform(fetch, coalescingKey: "second")
      }
    }
    // It joined the first request's adapter (whose events go to the first manager's
    // subscribers).
    #expect(await events.wait { $0.kind == .joined })
    first.cancel()
    #expect(await error(of: first) is CancellationError)
    #expect(!fetch.isCancelled)
    service.answer(.success(["shared"]))
    #expect(await value(of: secondCall) == ["shared"])
    #expect(service.requestCount == 1)
    #expect(!fetch.isCancelled)
  }

  /// A request through a second manager for an instance the first manager's adapter runs
  /// waits there: the second manager's cancel-all does not reach it (nor the run), and the
  /// second manager is idle meanwhile. The run's outcome reaches its caller.
  @Test func anotherManagersCancelAllLeavesACallerWaitingWhereTheRunIs() async {
    let manager = OperationQueueManager()
    let other = OperationQueueManager()
    let events = EventLog(manager)
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "s", service: service)
    let first = Task { try await manager.perform(fetch, coalescingKey: "first") }
    #expect(await service.firstRequest.wait())
    let second = Task { try await other.perform(fetch) }
    #expect(await events.wait { $0.kind == .joined })
    other.cancelAllOperations()
    #expect(other.outstandingOperationCount == 0)
    #expect(await completing(within: .seconds(30)) { try? await other.waitUntilIdle() } != nil)
    #expect(!fetch.isCancelled)
    service.answer(.success(["shared"]))
    #expect(await value(of: second) == ["shared"])
    #expect(await value(of: first) == ["shared"])
  }

  /// Two requests for one instance that race (here the second request runs inside the first
  /// one's admission, while its manager adds the adapter to its queue) share the instance's one
  /// adapter. The first request's caller leaving then never cancels the operation: it goes on
  /// for the second request's completion handler, which never leaves.
  @Test func racingRequestsForOneInstanceNeverCancelItUnderEachOther() async {
    let first = OperationQueueManager()
    let second = OperationQueueManager()
    let firstEvents = EventLog(first)
    let running = Gate()
    let finishing = Gate()
    let legacy = DependencyHookOperation {
      running.open()
      _ = finishing.block()
    }
    let handled = Recorder<Result<Void, any Error>>()
    legacy.onNextDependenciesRead {
      second.enqueue(legacy) { handled.record($0) }
    }
    let leaving = Task { try await first.perform(legacy, coalescingKey: "first") }
    // Run by the one adapter, which the first manager claimed and started; the second request
    // joined it.
    #expect(await running.wait())
    #expect(await firstEvents.wait { $0.kind == .started })
    leaving.cancel()
    #expect(await error(of: leaving) is CancellationError)
    #expect(!legacy.isCancelled)
    finishing.open()
    #expect(await handled.wait(forCount: 1))
    #expect((try? handled.values.first?.get()) != nil)
    #expect(!legacy.isCancelled)
    #expect(await becomesIdle(first, within: .seconds(30)))
    #expect(await becomesIdle(second, within: .seconds(30)))
  }

  /// A request for an instance whose adapter was cancelled while pending (its queue
  /// suspended) makes a new adapter the instance's, which runs the operation for it; the
  /// cancelled adapter, when its queue starts it, leaves the operation alone.
  @Test func aRequestForAnInstanceWhosePendingAdapterWasCancelledGetsItsRun() async {
    let first = OperationQueueManager()
    first.isSuspended = true
    let second = OperationQueueManager()
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "s", service: service)
    let leaving = Task { try await first.perform(fetch) }
    #expect(await eventually(within: .seconds(30)) { first.outstandingOperationCount == 1 })
    leaving.cancel()
    #expect(await error(of: leaving) is CancellationError)
    let handled = Recorder<Result<[String], any Error>>()
    second.enqueue(fetch) { handled.record($0) }
    first.isSuspended = false
    #expect(await service.firstRequest.wait())
    service.answer(.success(["ran"]))
    #expect(await handled.wait(forCount: 1))
    #expect((try? handled.values.first?.get()) == ["ran"])
    #expect(!fetch.isCancelled)
    #expect(await becomesIdle(first, within: .seconds(30)))
    #expect(await becomesIdle(second, within: .seconds(30)))
  }

  @Test func cancelAllCancelsPendingAndExecutingForeignWork() async {
    let manager = OperationQueueManager(maxConcurrentOperationCount: 1)
    let service = ManualQuestionService()
    let running = FetchTitlesOperation(site: "a", service: service)
    let block = BlockOperation {}
    let runningTask = Task { try await manager.perform(running) }
    #expect(await service.firstRequest.wait())
    let pendingTask = Task { try await manager.perform(block) }
    let handled = Gate()
    manager.enqueue(LoadQuestionOperation(id: 1, store: FixedQuestionStore(questions: [:]))) {
      result in
      if case .failure(let error) = result, error is CancellationError { handled.open() }
    }
    #expect(await eventually(within: .seconds(30)) { manager.outstandingOperationCount == 3 })
    manager.cancelAllOperations()
    #expect(await error(of: runningTask) is CancellationError)
    #expect(await error(of: pendingTask) is CancellationError)
    #expect(await handled.wait())
    #expect(await eventually(within: .seconds(30)) { running.isCancelled && block.isCancelled })
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  /// A `BlockOperation` whose work never checks `isCancelled`: its waiter leaves at once, the
  /// work runs to its end, and it keeps its queue slot until then, as in a plain queue.
  @Test func workThatIgnoresCancellationKeepsItsSlotButNotItsWaiter() async {
    let manager = OperationQueueManager(maxConcurrentOperationCount: 1)
    let threads = manager.queue.runsBlockingWork(label: "cancellation.stubborn")
    let work = BlockingWork()
    let stubborn = BlockOperation { work.run() }
    let task = Task { try await manager.perform(stubborn) }
    #expect(await work.started.wait())
    task.cancel()
    #expect(await error(of: task) is CancellationError)
    let next = BlockOperation {}
    let nextTask = Task { try await manager.perform(next) }
    #expect(await eventually(within: .seconds(30)) { stubborn.isCancelled })
    #expect(!next.isExecuting && !next.isFinished)
    work.release()
    _ = await value(of: nextTask)
    #expect(work.runCount == 1)
    #expect(await becomesIdle(manager, within: .seconds(30)))
    withExtendedLifetime(threads) {}
  }

  /// The same instance handed over again after its first caller left: the new request does
  /// not join the cancelled adapter but makes a new one, which runs the instance unless the
  /// first adapter finished it unrun on its way out: either way it runs at most once and is
  /// never started by both (a second `start()` of a `BlockOperation` traps).
  @Test func anInstanceHandedOverAgainAfterItsCancellationIsStartedOnce() async {
    let manager = OperationQueueManager()
    for _ in 0..<200 {
      manager.isSuspended = true
      let runs = Locked(0)
      let operation = BlockOperation { runs.withLock { $0 += 1 } }
      let first = Task { try await manager.perform(operation) }
      #expect(await eventually(within: .seconds(30)) { manager.outstandingOperationCount == 1 })
      first.cancel()
      guard await error(of: first) is CancellationError else { return }
      let second = Task { try await manager.perform(operation) }
      #expect(await eventually(within: .seconds(30)) { manager.outstandingOperationCount == 2 })
      manager.isSuspended = false
      switch await result(of: second) {
      case nil:
        Issue.record("the second request hung")
      case .success?: #expect(runs.withLock { $0 } == 1)
      case .failure(let error)?: #expect(error is CancellationError && runs.withLock { $0 } == 0)
      }
      guard await becomesIdle(manager, within: .seconds(30)) else { return }
    }
  }

  @Test func cancelledWorkIsNeverJoined() async {
    let manager = OperationQueueManager()
    let service = ManualQuestionService()
    let first = FetchTitlesOperation(site: "s", service: service)
    let leaving = Task { try await manager.perform(first, coalescingKey: "s") }
    #expect(await service.firstRequest.wait())
    leaving.cancel()
    #expect(await error(of: leaving) is CancellationError)
    let fresh = Task {
      try await manager.perform(
        FetchTitlesOperation(site: "s", service: service), coalescingKey: "s")
    }
    #expect(await eventually(within: .seconds(30)) { service.requestCount == 2 })
    service.answer(.success(["fresh"]))
    #expect(await value(of: fresh) == ["fresh"])
  }
}

/// A block operation that runs a one-shot hook the next time its dependencies are read, which
/// a manager does while adding the instance's adapter to its queue.
private final class DependencyHookOperation: BlockOperation, @unchecked Sendable {
  private let hook = Locked<(@Sendable () -> Void)?>(nil)

  /// Runs `body` (once) at the next read of `dependencies`.
  func onNextDependenciesRead(_ body: @escaping @Sendable () -> Void) {
    hook.withLock { $0 = body }
  }

  override var dependencies: [Operation] {
    hook.withLock { $0.take() }?()
    return super.dependencies
  }
}
