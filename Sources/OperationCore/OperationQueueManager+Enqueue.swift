import Foundation

extension OperationQueueManager {
  /// The result of admitting a request: the operation doing the work, and the waiter's place.
  @usableFromInline
  package struct Admission<Value: Sendable, Failure: Error> {
    /// The operation that does the work: the one passed in, or the in-flight one it joined.
    @usableFromInline
    package let operation: ConcurrentOperation<Value, Failure>
    /// The waiter's identity on `operation`, to leave early; nil when no waiter was given or
    /// the outcome was delivered at once.
    @usableFromInline
    package let waiterID: OperationWaiter.ID?
  }

  /// Enqueues `operation`, or joins an identical one in flight, and calls `completion` once
  /// with the result (`CancellationError` when cancelled, ``OperationTimeoutError`` on timeout).
  ///
  /// - Parameters:
  ///   - operation: The work. If an operation with the same ``CoalescingKey`` is pending or
  ///     executing, this one is dropped and `completion` waits for that one instead.
  ///   - priority: The queue priority; joining raises a pending operation's priority to it.
  ///   - callbackQueue: Where to call `completion`; nil calls it on the settling thread.
  ///   - completion: Called exactly once.
  /// - Returns: The operation that does the work; cancelling it cancels every waiter.
  @discardableResult
  @inlinable
  public func enqueue<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil,
    completion: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) -> ConcurrentOperation<Value, Failure> {
    let waiter = operation.makeWaiter(callbackQueue: callbackQueue, untypedResult: completion)
    return admit(operation, waiter: waiter, leavesEarly: false, priority: priority).operation
  }

  /// Enqueues `operation`, or joins an identical one in flight, and calls `completion` once
  /// with the typed result (cancellation and timeout through ``OperationFailure``).
  ///
  /// - Parameters:
  ///   - operation: The work; see ``enqueue(_:priority:callbackQueue:completion:)-(_,_,_,(Result<Value,any Error>)->Void)``.
  ///   - priority: The queue priority; joining raises a pending operation's priority to it.
  ///   - callbackQueue: Where to call `completion`; nil calls it on the settling thread.
  ///   - completion: Called exactly once.
  /// - Returns: The operation that does the work; cancelling it cancels every waiter.
  @discardableResult
  @inlinable
  public func enqueue<Value, Failure: OperationFailure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil,
    completion: @escaping @Sendable (Result<Value, Failure>) -> Void
  ) -> ConcurrentOperation<Value, Failure> {
    let waiter = operation.makeWaiter(callbackQueue: callbackQueue, typedResult: completion)
    return admit(operation, waiter: waiter, leavesEarly: false, priority: priority).operation
  }

  /// Enqueues `operation`, or joins an identical one in flight, without waiting for it.
  ///
  /// - Returns: The operation that does the work; add completions to it or cancel it.
  @discardableResult
  public func enqueue<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil
  ) -> ConcurrentOperation<Value, Failure> {
    admit(operation, waiter: nil, leavesEarly: false, priority: priority).operation
  }

  /// Joins the open operation indexed under `key` with `waiter`, if there is one of `type`;
  /// nil when nothing joinable is in flight. Lets a caller skip building an operation that
  /// would only be dropped.
  @usableFromInline
  package func joinInFlight<Value, Failure>(
    _ key: CoalescingKey,
    as type: ConcurrentOperation<Value, Failure>.Type,
    waiter: OperationWaiter?,
    leavesEarly: Bool,
    priority: Operation.QueuePriority?
  ) -> Admission<Value, Failure>? {
    let joined = state.withLock { state in
      Self.join(key, as: type, in: state, excluding: nil, waiter: waiter, leavesEarly: leavesEarly)
    }
    guard let joined else { return nil }
    return didJoin(joined, key: key, waiter: waiter, priority: priority)
  }

  /// Enqueues or joins, registering `waiter` atomically with the decision.
  ///
  /// A waiter that `leavesEarly` (an awaiting task) may later leave through
  /// `ConcurrentOperation.cancelWaiter`; when the last such waiter leaves and nobody else
  /// wants the value, the operation is cancelled.
  @usableFromInline
  package func admit<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    waiter: OperationWaiter?,
    leavesEarly: Bool,
    priority: Operation.QueuePriority?
  ) -> Admission<Value, Failure> {
    guard let key = operation.coalescingKey else {
      // Nothing to join or index: the operation's own lock makes the claim atomic.
      let claim = claim(operation, waiter: waiter, leavesEarly: leavesEarly, priority: priority)
      return admitClaimed(operation, claim, key: nil, waiter: waiter, leavesEarly: leavesEarly)
    }
    // One step under the manager's lock: join work in flight, or claim this operation,
    // register the waiter and index it, so two identical requests never both start fresh work.
    var claim = OperationStateMachine.Claim.rejected
    let joined = state.withLock { state -> Joined<Value, Failure>? in
      if let joined = Self.join(
        key, as: ConcurrentOperation<Value, Failure>.self, in: state, excluding: operation,
        waiter: waiter, leavesEarly: leavesEarly)
      {
        return joined
      }
      claim = self.claim(operation, waiter: waiter, leavesEarly: leavesEarly, priority: priority)
      // Settled work (cancelled before it was enqueued) is never indexed: nothing would
      // remove it.
      if case .claimed(_, settled: nil) = claim { state.inFlight[key] = operation }
      return nil
    }
    guard let joined else {
      return admitClaimed(operation, claim, key: key, waiter: waiter, leavesEarly: leavesEarly)
    }
    // The dropped request never runs. On swift-corelibs-foundation each of its dependencies
    // keeps an unretained pointer to it and dereferences it on finishing, which crashes once
    // the caller releases it (a coalesced `ChainedOperation`, say): detach it.
    for dependency in operation.dependencies { operation.removeDependency(dependency) }
    return didJoin(joined, key: key, waiter: waiter, priority: priority)
  }

  /// After claiming (or failing to claim) `operation` itself, outside the lock: enqueues it,
  /// or waits for it when it was enqueued before.
  private func admitClaimed<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    _ claim: OperationStateMachine.Claim,
    key: CoalescingKey?,
    waiter: OperationWaiter?,
    leavesEarly: Bool
  ) -> Admission<Value, Failure> {
    switch claim {
    case .rejected:
      // Enqueued before (here or elsewhere) or already run: wait for it rather than trap.
      let id = waiter.flatMap { operation.addWaiter($0, leavesEarly: leavesEarly) }
      return Admission(operation: operation, waiterID: id)
    case .claimed(let id, let settled):
      if let settled { waiter?.resume(with: settled) }
      events.publish(
        event(.enqueued, for: operation, key: key, waiterCount: waiter == nil ? 0 : 1))
      queue.addOperation(operation)
      return Admission(operation: operation, waiterID: id)
    }
  }

  /// Claims `operation` for this manager's queue with its first waiter, and counts it as
  /// outstanding; `.rejected` when it was enqueued before.
  private func claim<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    waiter: OperationWaiter?,
    leavesEarly: Bool,
    priority: Operation.QueuePriority?
  ) -> OperationStateMachine.Claim {
    let claim = operation.claimForEnqueue(observer: self, waiter: waiter, leavesEarly: leavesEarly)
    guard case .claimed = claim else { return .rejected }
    // Set before the operation becomes visible to joiners, who may only raise it.
    if let priority { operation.setInitialPriority(priority) }
    // Counted before the queue sees it: its finish decrements.
    outstanding.add(1, ordering: .sequentiallyConsistent)
    return claim
  }

  /// Under the manager's lock: adds `waiter` to the open operation indexed under `key`, unless
  /// it is `operation` itself or not of `type`.
  private static func join<Value, Failure>(
    _ key: CoalescingKey,
    as type: ConcurrentOperation<Value, Failure>.Type,
    in state: State,
    excluding operation: ConcurrentOperation<Value, Failure>?,
    waiter: OperationWaiter?,
    leavesEarly: Bool
  ) -> Joined<Value, Failure>? {
    guard let current = state.inFlight[key] as? ConcurrentOperation<Value, Failure>,
      current !== operation,
      let (id, count) = current.join(waiter, leavesEarly: leavesEarly)
    else { return nil }
    return Joined(operation: current, id: id, waiterCount: count)
  }

  /// After joining, outside the lock: raises the shared operation's priority and reports it.
  private func didJoin<Value, Failure>(
    _ joined: Joined<Value, Failure>,
    key: CoalescingKey?,
    waiter: OperationWaiter?,
    priority: Operation.QueuePriority?
  ) -> Admission<Value, Failure> {
    if let priority { joined.operation.raisePriority(to: priority) }
    events.publish(event(.joined, for: joined.operation, key: key, waiterCount: joined.waiterCount))
    return Admission(operation: joined.operation, waiterID: waiter == nil ? nil : joined.id)
  }
}

/// An operation in flight that a request joined, with the request's place among its waiters.
private struct Joined<Value: Sendable, Failure: Error> {
  let operation: ConcurrentOperation<Value, Failure>
  let id: OperationWaiter.ID
  let waiterCount: Int
}
