import AsyncBridge
import Dispatch
import Foundation
import LockedValue
import OperationCore
import TestSupport

/// One round of the reliability stress test: a new manager, lanes of scripted random actions
/// running at once on threads and in tasks, then a clean-up that lets everything end, and the
/// invariant checks of `StressRound+Verification.swift` and ``EventInvariants``.
final class StressRound: Sendable {
  /// Everything the round created and every waiter it started.
  struct State {
    /// Every operation the round created, indexed by serial number.
    var operations: [ProbedOperation] = []
    var operationsByID: [ObjectIdentifier: ProbedOperation] = [:]
    /// Operations known to be in the queue (an `enqueued` event was seen, or an enqueue
    /// returned them): the only ones the lanes cancel or finish, and the clean-up releases.
    var admitted: [ProbedOperation] = []
    var admittedIDs: Set<ObjectIdentifier> = []
    var handlers: [StressHandler] = []
    var awaiters: [StressAwaiter] = []
    var idleWaits: [StressIdleWait] = []
    /// Enqueue calls (with or without a handler) that returned another operation than theirs.
    var joinsByEnqueue = 0
    /// Enqueue calls that returned an operation that is not a `ProbedOperation`.
    var foreignOperations = 0
    /// Steps that were handed to a global queue and have not run yet.
    var deferredSteps = 0

    mutating func admit(_ id: ObjectIdentifier) {
      guard let operation = operationsByID[id], admittedIDs.insert(id).inserted else { return }
      admitted.append(operation)
    }
  }

  let seed: UInt64
  let round: Int
  let plan: StressRoundPlan
  let marker: QueueThreadMarker
  let manager: OperationQueueManager
  /// The round's events, checked against the lifecycle contract.
  let invariants: EventInvariants
  // State lives in `state`, guarded by its lock; the rest is immutable or thread-safe.
  let state: Locked<State>
  let handlerCalls = AsyncCounter()
  let awaitersDone = AsyncCounter()
  let idleWaitsDone = AsyncCounter()
  private let callbackDispatchQueue: DispatchQueue
  private let callbackOperationQueue: OperationQueue

  init(seed: UInt64, round: Int) {
    self.seed = seed
    self.round = round
    plan = StressRoundPlan(seed: seed, round: round)
    marker = QueueThreadMarker(label: "reliability.stress.\(round)")
    manager = marker.makeManager(
      name: "reliability.stress.\(round)",
      maxConcurrentOperationCount: plan.maxConcurrentOperationCount)
    manager.isSuspended = plan.startsSuspended
    manager.stallThreshold = plan.stallThreshold
    let state = Locked(State())
    self.state = state
    invariants = EventInvariants(manager) { event in
      if event.kind == .enqueued { state.withLock { $0.admit(event.operationID) } }
    }
    callbackDispatchQueue = DispatchQueue(
      label: "reliability.stress.callbacks", attributes: .concurrent)
    callbackOperationQueue = OperationQueue()
    callbackOperationQueue.maxConcurrentOperationCount = 2
  }

  /// Names the round in failure messages, with the environment that replays it.
  var context: String {
    "seed \(seed), round \(round) (replay: RELIABILITY_SEED=\(seed) RELIABILITY_ROUND=\(round))"
  }

  // MARK: Lanes

  /// Runs every lane at once; false if the thread lanes did not end before `deadline`.
  func runLanes(until deadline: ContinuousClock.Instant) async -> Bool {
    let threadsDone = AsyncCounter()
    for script in plan.threadLanes {
      Thread.detachNewThread { [self] in
        for action in script {
          if case .pause(let microseconds) = action {
            usleep(UInt32(microseconds))
          } else {
            execute(action)
          }
        }
        threadsDone.increment()
      }
    }
    await withTaskGroup(of: Void.self) { group in
      for script in plan.taskLanes {
        group.addTask { [self] in
          for action in script {
            if case .pause = action {
              await Task.yield()
            } else {
              execute(action)
            }
          }
        }
      }
    }
    return await threadsDone.wait(
      untilAtLeast: plan.threadLanes.count, timeout: deadline - ContinuousClock.now)
  }

  /// Performs one step on the calling thread.
  func execute(_ action: StressAction) {
    switch action {
    case .enqueueWithHandler(let plan, let callback):
      let callbackQueue: CallbackQueue? =
        switch callback {
        case .settlingThread: nil
        case .dispatchQueue: .dispatch(callbackDispatchQueue)
        case .operationQueue: .operation(callbackOperationQueue)
        }
      enqueue(
        makeOperation(plan), origin: .new, priority: plan.priority, callbackQueue: callbackQueue)
    case .enqueueWithoutWaiter(let plan):
      let operation = makeOperation(plan)
      noteEnqueue(of: operation, working: manager.enqueue(operation, priority: plan.priority))
    case .perform(let plan):
      startAwaiter(plan)
    case .enqueueAgain(let pick):
      guard let operation = admittedOperation(pick) else { return }
      enqueue(operation, origin: .again, priority: nil, callbackQueue: nil)
    case .enqueueFromTwoThreads(let plan):
      let operation = makeOperation(plan)
      deferred(microseconds: 0) { [self] in
        enqueue(operation, origin: .twoThreads, priority: plan.priority, callbackQueue: nil)
      }
      enqueue(operation, origin: .twoThreads, priority: plan.priority, callbackQueue: nil)
    case .cancelTask(let pick):
      let awaiter = state.withLock {
        $0.awaiters.isEmpty ? nil : $0.awaiters[pick % $0.awaiters.count]
      }
      awaiter?.task.cancel()
    case .cancelOperation(let pick):
      admittedOperation(pick)?.cancel()
    case .finishHere(let pick):
      admittedOperation(pick)?.release()
    case .finishElsewhere(let pick, let microseconds):
      guard let operation = admittedOperation(pick) else { return }
      deferred(microseconds: microseconds) { operation.release() }
    case .cancelAll:
      // The lanes finish, cancel and time out operations meanwhile.
      invariants.cancelAll(manager, othersMaySettle: true)
    case .forget(let key):
      manager.forget(key: key)
    case .suspend:
      manager.isSuspended = true
    case .resume:
      manager.isSuspended = false
    case .waitForIdle:
      startIdleWait()
    case .cancelIdleWait(let pick):
      let wait = state.withLock {
        $0.idleWaits.isEmpty ? nil : $0.idleWaits[pick % $0.idleWaits.count]
      }
      wait?.cancel()
    case .pause:
      break
    }
  }

  private func makeOperation(_ plan: StressOperationPlan) -> ProbedOperation {
    state.withLock { state in
      let operation = ProbedOperation(
        serial: state.operations.count, key: plan.key, ending: plan.ending, fails: plan.fails,
        timeout: plan.timeout, marker: marker)
      state.operations.append(operation)
      state.operationsByID[ObjectIdentifier(operation)] = operation
      invariants.track(operation)
      return operation
    }
  }

  private func admittedOperation(_ pick: Int) -> ProbedOperation? {
    state.withLock { $0.admitted.isEmpty ? nil : $0.admitted[pick % $0.admitted.count] }
  }

  private func enqueue(
    _ operation: ProbedOperation, origin: StressHandler.Origin,
    priority: Operation.QueuePriority?, callbackQueue: CallbackQueue?
  ) {
    let handler = StressHandler(
      origin: origin, ownSerial: operation.serial, usesCallbackQueue: callbackQueue != nil,
      calls: handlerCalls)
    state.withLock { $0.handlers.append(handler) }
    handler.willEnqueue()
    let working = manager.enqueue(operation, priority: priority, callbackQueue: callbackQueue) {
      handler.deliver($0)
    }
    handler.didEnqueue(working: (working as? ProbedOperation)?.serial)
    noteEnqueue(of: operation, working: working)
  }

  private func noteEnqueue(
    of operation: ProbedOperation, working: ConcurrentOperation<Int, any Error>
  ) {
    state.withLock { state in
      guard let working = working as? ProbedOperation else {
        state.foreignOperations += 1
        return
      }
      state.admit(ObjectIdentifier(working))
      if working !== operation { state.joinsByEnqueue += 1 }
    }
  }

  private func startAwaiter(_ plan: StressOperationPlan) {
    let operation = makeOperation(plan)
    let awaiter = StressAwaiter(key: plan.key, ownSerial: operation.serial)
    let manager = manager
    awaiter.task.start(counting: awaitersDone) {
      try await manager.perform(
        operation, priority: plan.priority, whenAbandoned: plan.whenAbandoned)
    }
    state.withLock { $0.awaiters.append(awaiter) }
  }

  private func startIdleWait() {
    let wait = StressIdleWait()
    let manager = manager
    wait.start(counting: idleWaitsDone) { try await manager.waitUntilIdle() }
    state.withLock { $0.idleWaits.append(wait) }
  }

  /// Runs `body` on a global queue after `microseconds`; the clean-up waits for it.
  private func deferred(microseconds: Int, _ body: @escaping @Sendable () -> Void) {
    state.withLock { $0.deferredSteps += 1 }
    DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(microseconds)) {
      [state] in
      body()
      state.withLock { $0.deferredSteps -= 1 }
    }
  }

  // MARK: Clean-up

  /// Lets everything end: resumes the queue and, until every waiter has its outcome and the
  /// manager is idle, releases every operation in the queue that waits for a release (jammed
  /// ones are left to their timeouts). False if that took until `deadline`.
  func settle(until deadline: ContinuousClock.Instant) async -> Bool {
    manager.isSuspended = false
    while true {
      let (admitted, handlers, awaiters, idleWaits, deferredSteps) = state.withLock {
        ($0.admitted, $0.handlers, $0.awaiters.count, $0.idleWaits.count, $0.deferredSteps)
      }
      for operation in admitted where operation.ending != .never { operation.release() }
      if deferredSteps == 0, awaitersDone.value >= awaiters, idleWaitsDone.value >= idleWaits,
        handlers.allSatisfy({ !$0.results.isEmpty }), manager.isIdle
      {
        return true
      }
      guard ContinuousClock.now < deadline else { return false }
      try? await Task.sleep(for: .milliseconds(1))
    }
  }

  /// What is still open, for a hang report.
  func hangReport() -> String {
    let (admitted, handlers, awaiters, idleWaits, deferredSteps) = state.withLock {
      ($0.admitted, $0.handlers, $0.awaiters, $0.idleWaits, $0.deferredSteps)
    }
    let unfinished = admitted.filter { !$0.isFinished }.prefix(8).map { operation in
      "\(operation.name ?? "?")(executing: \(operation.isExecuting), cancelled: "
        + "\(operation.isCancelled), settled: \(operation.result != nil), "
        + "probe: \(operation.probe))"
    }
    return "outstanding \(manager.outstandingOperationCount), suspended \(manager.isSuspended), "
      + "handlers without a call \(handlers.filter { $0.results.isEmpty }.count), "
      + "tasks not resumed \(awaiters.filter { $0.task.result == nil }.count), "
      + "idle waits not resumed \(idleWaits.filter { $0.result == nil }.count), "
      + "deferred steps \(deferredSteps), unfinished operations \(unfinished)"
  }
}
